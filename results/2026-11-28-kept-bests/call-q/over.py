import json, sys, numpy as np, glob, os
exec(open('ana.py').read().split("opt=6000892")[0])
for run in sys.argv[1:]:
    d=json.load(open(f'wQ/j/{run}.json'))
    el=(np.frombuffer(d['solution'].encode(),dtype=np.uint8)-48).astype(np.uint8)
    sizes,y,l2=domains(el)
    # y = minority indicator relative to checkerboard of el; optimum phase = el's majority phase
    ph = (el^par); maj = 1 if ph.sum()>ph.size/2 else 0
    big=np.argsort(-np.bincount(l2))[:4]
    print(run, 'E missing', 6000892-fit(el), 'domains', sizes[:4])
    for f in sorted(glob.glob(f'wQ/j/{run}/best-p*.u8')):
        x=np.fromfile(f,dtype=np.uint8); px=(x^par)
        # align x's global phase to el's majority
        if (px==maj).mean()<0.5: px=1-px
        out=[]
        for k in big:
            if k==0: continue
            m=(l2==k)
            if m.sum()==0: continue
            out.append((int(m.sum()), round(float((px[m]==maj).mean()),3)))
        print('  ',os.path.basename(f), 6000892-fit(x), 'right-phase share over E domains', out, 'overall', round(float((px==maj).mean()),3))
