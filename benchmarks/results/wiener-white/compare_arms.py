"""after − before per condition: mean, clips ahead, per clip, time ratio; 95 % t interval."""
import csv, sys, statistics as st
from scipy import stats
def load(path, method, cond_key):
    out = {}
    for r in csv.DictReader(open(path)):
        if r["method"] == method:
            out[(r[cond_key], r["clip"])] = (float(r["psnr"]), float(r["seconds_per_frame"]))
    return out
kind = sys.argv[1]
before_path, after_path, mb, ma = sys.argv[2:6]
key = "sigma_255" if kind == "g" else "condition"
b, a = load(before_path, mb, key), load(after_path, ma, key)
for cond in sorted({c for c, _ in a}, key=lambda c: float(c) if kind == "g" else c):
    clips = sorted(k for c, k in a if c == cond and (c, k) in b)
    d = [a[(cond, k)][0] - b[(cond, k)][0] for k in clips]
    tb = st.mean(b[(cond, k)][1] for k in clips); ta = st.mean(a[(cond, k)][1] for k in clips)
    mb_ = st.mean(b[(cond, k)][0] for k in clips); ma_ = st.mean(a[(cond, k)][0] for k in clips)
    m = st.mean(d); h = stats.t.ppf(0.975, len(d) - 1) * st.stdev(d) / len(d) ** 0.5 if len(d) > 1 else float("nan")
    print(f"{cond:>20}  before {mb_:.2f}  after {ma_:.2f}  diff {m:+.3f} [{m-h:+.2f}, {m+h:+.2f}]  ahead {sum(x > 0 for x in d)}/{len(d)}  "
          f"per clip {' '.join(f'{x:+.2f}' for x in d)}  time {ta/tb:.2f}")
print("clips:", ", ".join(clips))
