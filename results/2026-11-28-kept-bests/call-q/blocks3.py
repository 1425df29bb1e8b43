exec(open('blocks2.py').read().split("print('check'")[0])
import sys
run=sys.argv[1]
d=json.load(open(f'wQ/j/{run}.json'))
el=(np.frombuffer(d['solution'].encode(),dtype=np.uint8)-48).astype(np.uint8)
print(run,'elitist',fit(el),opt-fit(el))
m=el
for rnd in range(2):
  for f in sorted(glob.glob(f'wQ/j/{run}/best-p*.u8')):
    x=np.fromfile(f,dtype=np.uint8)
    m,g=blockmix(m,x)
    print(' ',rnd,os.path.basename(f),'gain',g,'->',opt-fit(m),'domains',domains(m)[0][:4], flush=True)
