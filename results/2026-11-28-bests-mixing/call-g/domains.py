import json, sys, numpy as np
from scipy import ndimage
side=1000
E=np.loadtxt('torus1000.txt', skiprows=3, dtype=np.int64)
a,b,w=E[:,0]-1,E[:,1]-1,E[:,2]
for f in sys.argv[1:]:
    d=json.load(open(f)); x=np.frombuffer(d['solution'].encode(),dtype=np.uint8)-48
    cut=(x[a]!=x[b]); print(f, d['best_fitness'], 'check', (w*cut).sum(), 'uncut edges', (~cut).sum(), 'lost weight', (w*~cut).sum())
    g=x.reshape(side,side); r,c=np.indices((side,side)); ph=(g ^ ((r+c)&1)).astype(np.uint8)
    maj=np.bincount(ph.ravel()).argmax(); minority=(ph!=maj)
    lab,nc=ndimage.label(minority)  # not periodic but fine
    sizes=np.bincount(lab.ravel())[1:]
    print('  minority phase vars', minority.sum(), 'domains', nc, 'sizes top', sorted(sizes)[-8:], 'size hist', np.histogram(sizes,bins=[1,2,3,5,10,30,100,1000,10**7])[0])
    # rows/cols fully spanned?
    print('  rows with minority', (minority.any(1)).sum(), 'cols', minority.any(0).sum())
