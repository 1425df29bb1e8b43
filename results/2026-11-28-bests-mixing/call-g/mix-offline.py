import json, sys, numpy as np
from scipy import ndimage
side=1000
E=np.loadtxt('torus1000.txt', skiprows=2, dtype=np.int64)
a,b,w=E[:,0]-1,E[:,1]-1,E[:,2]
def fit(x): return int((w*(x[a]!=x[b])).sum())
def load(f): return (np.frombuffer(json.load(open(f))['solution'].encode(),dtype=np.uint8)-48).astype(np.uint8)
def mix(r, d):
    # components of difference on the periodic grid, take improving ones; both masks
    r=r.copy()
    for mask in (0,1):
        diff=(r!=(d^mask)).reshape(side,side)
        lab,nc=ndimage.label(diff)
        lab=lab.ravel()
        # periodic merge: union labels across wrap edges
        parent=np.arange(nc+1)
        def find(i):
            while parent[i]!=i: parent[i]=parent[parent[i]]; i=parent[i]
            return i
        L=lab.reshape(side,side)
        for (p,q) in list(zip(L[0,:],L[-1,:]))+list(zip(L[:,0],L[:,-1])):
            if p and q:
                pp,qq=find(p),find(q)
                if pp!=qq: parent[pp]=qq
        roots=np.array([find(i) for i in range(nc+1)])
        lab=roots[lab]
        # gain per component: edges touching component; change = new cut - old cut
        y=np.where(lab>0, d^mask, r)
        old=(r[a]!=r[b]); new=(y[a]!=y[b]); ch=w*(new.astype(np.int64)-old)
        comp=np.maximum(lab[a],lab[b])  # an edge touches at most one component
        gain=np.bincount(comp, weights=ch, minlength=nc+1); gain[0]=0
        take=gain>0
        sel=take[lab] & (lab>0)
        r=np.where(sel, d^mask, r)
        print('   mask',mask,'components',len(np.unique(lab))-1,'taken',take.sum(),'gain',gain[take].sum())
    return r
xs=[load(f) for f in sys.argv[1:]]
for i in range(len(xs)):
    e=xs[i].copy(); print('start',sys.argv[1+i],fit(e))
    for j in range(len(xs)):
        if j!=i: e=mix(e,xs[j]); print('  after',j,fit(e))
