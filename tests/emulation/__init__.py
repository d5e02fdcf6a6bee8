"""Test-only stand-ins for the device: the host C++ builds of the kernels and
a stand-in CuPy that runs them on the CPU."""
