//! NTT over Fr on the device and the H polynomial pipeline (module "ntt").
