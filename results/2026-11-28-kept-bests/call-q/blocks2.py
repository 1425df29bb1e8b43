import json, sys, numpy as np, glob, os
exec(open('ana.py').read().split("opt=6000892")[0])
opt=6000892
Wh=np.zeros((side,side),np.int64); Wv=np.zeros((side,side),np.int64)
ya,xa=a//side,a%side; yb,xb=b//side,b%side
for (y1,x1,y2,x2,ww) in zip(ya,xa,yb,xb,w):
    pass
# vectorised
h=(ya==yb); 
# horizontal: b is right neighbour of a or vice versa
right=h&(((xa+1)%side)==xb); left=h&(((xb+1)%side)==xa)
Wh[ya[right],xa[right]]=w[right]; Wh[yb[left],xb[left]]=w[left]
v=~h
down=v&(((ya+1)%side)==yb); up=v&(((yb+1)%side)==ya)
Wv[ya[down],xa[down]]=w[down]; Wv[yb[up],xb[up]]=w[up]
def cutval(X, y0,x0,hgt,wid):
    # value of edges inside window rows y0..y0+hgt-1 (and their right/down edges excluding last col/row)
    ys=np.arange(y0,y0+hgt)%side; xs=np.arange(x0,x0+wid)%side
    Xs=X[np.ix_(ys,xs)]
    Wh_=Wh[np.ix_(ys,xs)][:, :-1]; Wv_=Wv[np.ix_(ys,xs)][:-1,:]
    return int((Wh_*(Xs[:,:-1]!=Xs[:,1:])).sum()+(Wv_*(Xs[:-1,:]!=Xs[1:,:])).sum())
def blockmix(r, d, sizes=(768,512,384,256,192,128,96,64,48,32)):
    R=r.reshape(side,side).copy(); total=0
    for mask in (0,1):
      D=(d^mask).reshape(side,side)
      for s in sizes:
        step=max(s//4,1)
        for oy in range(0,side,step):
          for ox in range(0,side,step):
            ys=np.arange(oy,oy+s)%side; xs=np.arange(ox,ox+s)%side
            if not (R[np.ix_(ys,xs)]!=D[np.ix_(ys,xs)]).any(): continue
            # window with 1-cell margin
            before=cutval(R,oy-1,ox-1,s+2,s+2)
            N=R.copy(); N[np.ix_(ys,xs)]=D[np.ix_(ys,xs)]
            g=cutval(N,oy-1,ox-1,s+2,s+2)-before
            if g>0: R=N; total+=g
    return R.ravel(), total
print('check', fit(np.zeros(side*side,np.uint8)), cutval(np.zeros((side,side),np.uint8),0,0,side,side))
run=sys.argv[1]
d=json.load(open(f'wQ/j/{run}.json'))
el=(np.frombuffer(d['solution'].encode(),dtype=np.uint8)-48).astype(np.uint8)
print(run,'elitist',fit(el),opt-fit(el))
for f in sorted(glob.glob(f'wQ/j/{run}/best-p*.u8')):
    x=np.fromfile(f,dtype=np.uint8)
    m,g=blockmix(el,x)
    print(' ',os.path.basename(f),'block mix gain',g,'->',fit(m),opt-fit(m),'domains',domains(m)[0][:4], flush=True)
