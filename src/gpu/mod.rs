//! GPU backend: CUDA driver runtime, embedded PTX modules and kernel launchers.
