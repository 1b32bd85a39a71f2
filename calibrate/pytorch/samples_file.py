"""What the PyTorch measurement scripts share: the clustersim samples file's columns (format v2,
sim/store/calibration_sample.hpp) and the quantiles kept with each sample."""
import math

COLUMNS = ("kind,op,dtype,m,n,k,batch,heads,seq,head_dim,bytes,ranks,algo,median_s,p10_s,p90_s,reps,watts,"
           "layout,clocks,sm_mhz,temp_c,throttle")


def quantile(v, q):
    """Linear-interpolated quantile q (0..1) of the values v."""
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])
