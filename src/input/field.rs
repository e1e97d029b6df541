//! Field elements read from files: 32 little-endian bytes that must be a canonical element of
//! the BLS12-381 scalar field (below its modulus r). The hashers of the Filecoin crates turn
//! such bytes into field elements with a conversion that panics on a value ≥ r, so every value
//! that comes from a file is checked here first and refused with the place it was found.
use anyhow::{bail, Result};
use ff::PrimeField;
use serde_json::Value;

/// Whether `bytes` (little-endian) is a canonical scalar, below the modulus.
pub fn is_canonical(bytes: &[u8; 32]) -> bool {
    bool::from(blstrs::Scalar::from_repr(*bytes).is_some())
}

/// An error naming `field` unless `bytes` is a canonical scalar.
pub fn check_canonical(field: &str, bytes: &[u8; 32]) -> Result<()> {
    if !is_canonical(bytes) {
        bail!(
            "{field} is not a field element: its 32 bytes (little-endian) are not below the BLS12-381 scalar \
             modulus, so no sealing run made them (the file is corrupt or was edited)"
        );
    }
    Ok(())
}

/// The 32 bytes of a JSON array of 32 integers 0..=255, as serde writes `[u8; 32]`.
fn bytes32(v: &Value) -> Option<[u8; 32]> {
    let a = v.as_array()?;
    if a.len() != 32 {
        return None;
    }
    let mut out = [0u8; 32];
    for (o, x) in out.iter_mut().zip(a) {
        *o = u8::try_from(x.as_u64()?).ok()?;
    }
    Some(out)
}

/// Checks every field element of a raw `SealCommitPhase1Output` (JSON), naming the first that
/// is not canonical by its place in the file, e.g.
/// `vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[2].column.rows[0]`.
///
/// Every 32-byte array in that structure is a field element (commitments, replica id, tree
/// nodes, labels) except the two random values `seed` and `ticket`, which are only hashed.
pub fn check_c1_elements(raw: &Value) -> Result<()> {
    let Some(obj) = raw.as_object() else { return Ok(()) };
    let mut path = String::new();
    for (key, v) in obj {
        if key == "seed" || key == "ticket" {
            continue;
        }
        path.clear();
        path.push_str(key);
        walk(v, &mut path)?;
    }
    Ok(())
}

fn walk(v: &Value, path: &mut String) -> Result<()> {
    if let Some(b) = bytes32(v) {
        return check_canonical(path, &b);
    }
    let len = path.len();
    match v {
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                walk(x, path)?;
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (k, x) in map {
                path.push('.');
                path.push_str(k);
                walk(x, path)?;
                path.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// r − 1 is the largest canonical value, r the smallest that is not.
    #[test]
    fn canonical_is_below_the_modulus() {
        let minus_one = (-blstrs::Scalar::from(1u64)).to_repr();
        assert!(is_canonical(&minus_one));
        let mut r = minus_one;
        r[0] += 1; // r's low byte is 0x01, so r − 1's is 0x00: no carry
        assert!(!is_canonical(&r));
        assert!(!is_canonical(&[0xff; 32]));
        assert!(is_canonical(&[0; 32]));
        let mut top = [0u8; 32];
        top[31] = 0x3f;
        assert!(is_canonical(&top), "every value below 2^254 is canonical");
    }

    #[test]
    fn the_walk_names_the_place_and_skips_seed_and_ticket() {
        let ff = Value::from(vec![255u64; 32]);
        let ok = Value::from(vec![1u64; 32]);
        let mut raw = serde_json::json!({
            "comm_r": ok.clone(), "seed": ff.clone(), "ticket": ff.clone(),
            "vanilla_proofs": {"X": [[{"rows": [ok.clone(), ok.clone()]}]]}
        });
        check_c1_elements(&raw).unwrap();
        raw["vanilla_proofs"]["X"][0][0]["rows"][1] = ff.clone();
        let e = check_c1_elements(&raw).unwrap_err().to_string();
        assert!(e.starts_with("vanilla_proofs.X[0][0].rows[1] is not a field element"), "{e}");
        raw["comm_r"] = ff;
        let e = check_c1_elements(&raw).unwrap_err().to_string();
        assert!(e.starts_with("comm_r is not"), "{e}");
    }
}
