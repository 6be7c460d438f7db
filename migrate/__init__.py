"""triton-migrate: move Triton kernels off block pointers, deterministically."""

__version__ = "0.1.0"
