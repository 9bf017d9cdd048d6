"""A small kernel package written the way production NKI libraries are: a dataclass config, a
kernel_assert helper, a tiled-range helper class, enums, and kernels in another module."""
