//! Reading the fields of filsnark's JSON inputs (post.json, snap.json) with errors that name
//! the file, the key and what is wrong: an object with a fixed set of keys (an unknown key is
//! an error, a misspelt key must not be ignored), 32-byte values as 64 hex characters, byte
//! strings as standard padded base64, canonical BLS12-381 scalar field elements.
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use base64::Engine;
use blstrs::Scalar;
use ff::PrimeField;
use serde_json::{Map, Value};

/// A JSON object read key by key; `file` and `at` (e.g. `Sectors[2]`) prefix every error.
pub struct Fields<'a> {
    pub file: String,
    pub at: String,
    pub obj: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// `v` as an object whose keys are all in `known`.
    pub fn new(file: &Path, at: &str, v: &'a Value, known: &[&str]) -> Result<Self> {
        let file = file.display().to_string();
        let where_ = if at.is_empty() { String::new() } else { format!("{at}: ") };
        let obj =
            v.as_object().ok_or_else(|| anyhow!("{file}: {where_}expected a JSON object, found {}", kind_of(v)))?;
        for key in obj.keys() {
            if !known.contains(&key.as_str()) {
                bail!("{file}: {where_}unknown key \"{key}\" (expected {})", known.join(", "));
            }
        }
        Ok(Fields { file, at: at.to_string(), obj })
    }

    /// `file: at.key` for messages.
    pub fn name(&self, key: &str) -> String {
        if self.at.is_empty() {
            format!("{}: {key}", self.file)
        } else {
            format!("{}: {}.{key}", self.file, self.at)
        }
    }

    pub fn get(&self, key: &str) -> Result<&'a Value> {
        self.obj.get(key).ok_or_else(|| anyhow!("{} is missing", self.name(key)))
    }

    pub fn u64(&self, key: &str) -> Result<u64> {
        let v = self.get(key)?;
        v.as_u64().ok_or_else(|| anyhow!("{} must be a non-negative integer, found {v}", self.name(key)))
    }

    pub fn opt_u64(&self, key: &str) -> Result<Option<u64>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.u64(key).map(Some),
        }
    }

    pub fn str(&self, key: &str) -> Result<&'a str> {
        let v = self.get(key)?;
        v.as_str().ok_or_else(|| anyhow!("{} must be a string, found {}", self.name(key), kind_of(v)))
    }

    pub fn array(&self, key: &str) -> Result<&'a Vec<Value>> {
        let v = self.get(key)?;
        v.as_array().ok_or_else(|| anyhow!("{} must be an array, found {}", self.name(key), kind_of(v)))
    }

    /// 32 bytes written as 64 hex characters.
    pub fn hex32(&self, key: &str) -> Result<[u8; 32]> {
        hex32(self.str(key)?).map_err(|e| anyhow!("{} {e}", self.name(key)))
    }

    /// 32 bytes that must also be a canonical field element (little-endian, below the
    /// BLS12-381 scalar modulus), as every commitment is.
    pub fn field32(&self, key: &str) -> Result<[u8; 32]> {
        let b = self.hex32(key)?;
        if !is_canonical(&b) {
            bail!("{} is not a canonical field element (it is not below the BLS12-381 scalar modulus)", self.name(key));
        }
        Ok(b)
    }
}

/// Parses 64 hex characters (either case) into 32 bytes.
pub fn hex32(s: &str) -> std::result::Result<[u8; 32], String> {
    if s.len() != 64 {
        return Err(format!("must be 64 hex characters (32 bytes), found {} characters", s.len()));
    }
    let mut out = [0u8; 32];
    for (i, pair) in s.as_bytes().chunks(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16).ok_or_else(|| format!("has a non-hex character {:?}", c as char));
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Ok(out)
}

/// 64 lowercase hex characters.
pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Standard padded base64.
pub fn base64(file: &Path, at: &str, v: &Value) -> Result<Vec<u8>> {
    let s =
        v.as_str().ok_or_else(|| anyhow!("{}: {at} must be a base64 string, found {}", file.display(), kind_of(v)))?;
    base64::engine::general_purpose::STANDARD
        .decode(s.trim())
        .map_err(|e| anyhow!("{}: {at} is not valid base64 ({e})", file.display()))
}

/// Standard padded base64 of `b`.
pub fn to_base64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// Whether 32 little-endian bytes are a canonical BLS12-381 scalar.
pub fn is_canonical(b: &[u8; 32]) -> bool {
    Scalar::from_repr_vartime(*b).is_some()
}

pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects() {
        let b: [u8; 32] = std::array::from_fn(|i| (i * 37) as u8);
        assert_eq!(hex32(&to_hex(&b)).unwrap(), b);
        assert_eq!(hex32(&to_hex(&b).to_uppercase()).unwrap(), b);
        assert!(hex32("00").unwrap_err().contains("64 hex characters"));
        assert!(hex32(&"g".repeat(64)).unwrap_err().contains("non-hex"));
    }

    #[test]
    fn canonical_scalars() {
        assert!(is_canonical(&[0u8; 32]));
        let mut top = [0xffu8; 32];
        assert!(!is_canonical(&top));
        top[31] &= 0x3f;
        assert!(is_canonical(&top), "clearing the top two bits makes any value canonical");
    }
}
