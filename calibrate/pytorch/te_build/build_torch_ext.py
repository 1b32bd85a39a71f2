#!/usr/bin/env python3
"""Build Transformer Engine's PyTorch extension (transformer_engine_torch) from a TE source tree against the torch
of this interpreter, the way TE's build_tools/pytorch.py does (a CppExtension of pytorch/csrc), into --out.
Used by build_te.sh; the core library (libtransformer_engine.so) is built by CMake beforehand."""
import argparse
import glob
import os
import sys

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--te", required=True, help="Transformer Engine source tree")
    ap.add_argument("--out", required=True, help="where transformer_engine_torch*.so goes")
    ap.add_argument("--temp", required=True, help="object files")
    ap.add_argument("--cuda-include", action="append", default=[])
    args = ap.parse_args()
    te = os.path.abspath(args.te)
    csrc = os.path.join(te, "transformer_engine/pytorch/csrc")
    sources = sorted(glob.glob(os.path.join(csrc, "**/*.cpp"), recursive=True))
    include = args.cuda_include + [os.path.join(te, "transformer_engine"),
                                   os.path.join(te, "transformer_engine/common"),
                                   os.path.join(te, "transformer_engine/common/include"), csrc]
    ext = CppExtension(name="transformer_engine_torch", sources=sources, include_dirs=include,
                       extra_compile_args={"cxx": ["-O3", "-fvisibility=hidden", "-g0"]})
    sys.argv = [sys.argv[0], "build_ext", "--build-lib", os.path.abspath(args.out), "--build-temp",
                os.path.abspath(args.temp)]
    setup(name="transformer_engine_torch", ext_modules=[ext], cmdclass={"build_ext": BuildExtension})


if __name__ == "__main__":
    main()
