"""The CUDA backend: availability, NVRTC, the per-device module cache and table
upload, and one launcher module per kernel family. CuPy is imported only
inside functions."""
