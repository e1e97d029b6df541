//! Multi-scalar multiplication over G1 and G2 on the device (modules "msm_g1", "msm_g2").
