import json, sys, numpy as np, glob, os
from scipy import ndimage
side=1000
E=np.loadtxt('torus1000.txt', skiprows=1, dtype=np.int64) if False else None
lines=open('torus1000.txt').read().split('\n')
# find header
i=0
while lines[i].startswith('c') or lines[i].startswith('#'): i+=1
hdr=lines[i].split(); 
E=np.array([l.split() for l in lines[i+1:] if l.strip() and not l.startswith('c')],dtype=np.int64)
a,b,w=E[:,0]-1,E[:,1]-1,E[:,2]
def fit(x): return int((w*(x[a]!=x[b])).sum())
par=(np.add.outer(np.arange(side),np.arange(side))%2).ravel().astype(np.uint8)
def domains(x):
    # phase relative to checkerboard; majority phase -> minority domains
    y=(x^par).reshape(side,side)
    if y.sum()>y.size/2: y=1-y
    lab,nc=ndimage.label(y)
    # periodic merge
    parent=list(range(nc+1))
    def find(i):
        while parent[i]!=i: parent[i]=parent[parent[i]]; i=parent[i]
        return i
    for p,q in list(zip(lab[0,:],lab[-1,:]))+list(zip(lab[:,0],lab[:,-1])):
        if p and q:
            pp,qq=find(p),find(q)
            if pp!=qq: parent[pp]=qq
    roots=np.array([find(i) for i in range(nc+1)])
    l2=roots[lab.ravel()]
    sizes=np.bincount(l2)[1:]; sizes=sorted([s for s in sizes if s>0],reverse=True)
    return sizes, y.ravel(), l2
def mix(r, d, verbose=False):
    r=r.copy(); tot=0
    for mask in (0,1):
        diff=(r!=(d^mask)).reshape(side,side)
        lab,nc=ndimage.label(diff)
        parent=np.arange(nc+1)
        def find(i):
            while parent[i]!=i: parent[i]=parent[parent[i]]; i=parent[i]
            return i
        for (p,q) in list(zip(lab[0,:],lab[-1,:]))+list(zip(lab[:,0],lab[:,-1])):
            if p and q:
                pp,qq=find(p),find(q)
                if pp!=qq: parent[pp]=qq
        roots=np.array([find(i) for i in range(nc+1)])
        lab=roots[lab.ravel()]
        y=np.where(lab>0, d^mask, r)
        old=(r[a]!=r[b]); new=(y[a]!=y[b]); ch=w*(new.astype(np.int64)-old)
        comp=np.maximum(lab[a],lab[b])
        gain=np.bincount(comp, weights=ch, minlength=nc+1); gain[0]=0
        take=gain>0
        sel=take[lab] & (lab>0)
        r=np.where(sel, d^mask, r); tot+=gain[take].sum()
        if verbose:
            cs=np.bincount(lab)[1:]; big=np.argsort(-cs)[:4]
            print('     mask',mask,'components',(cs>0).sum(),'largest',[(int(cs[k]),int(gain[k+1])) for k in big],'taken gain',gain[take].sum())
    return r
opt=6000892
for run in sys.argv[1:]:
    d=json.load(open(f'wQ/j/{run}.json'))
    el=(np.frombuffer(d['solution'].encode(),dtype=np.uint8)-48).astype(np.uint8)
    print(run,'elitist',fit(el),opt-fit(el),'domains',domains(el)[0][:6])
    bests=sorted(glob.glob(f'wQ/j/{run}/best-p*.u8'))
    xs=[]
    for f in bests:
        x=np.fromfile(f,dtype=np.uint8); xs.append(x)
        print('  ',os.path.basename(f),fit(x),opt-fit(x),'domains',domains(x)[0][:8])
    for k,x in enumerate(xs):
        print('  mix p%d into elitist:'%k); m=mix(el,x,True); print('    ->',fit(m))
