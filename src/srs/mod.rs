//! srs
