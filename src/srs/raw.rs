//! A range of a section's raw points in host memory, and how its bytes are copied out.
//!
//! Points of an opened `.params` file can be copied out with positioned reads of the file
//! (`pread` from the page cache; `FILSNARK_PARAMS_READ=file`) rather than through the mapping:
//! a streamed MSM copies each 12 GB section once a partition, and reading it through the mapping
//! faults in every 4 KiB page again (the pages are dropped from the process after each MSM to
//! keep RSS bounded), about three million faults a section for the staging threads. Points that
//! only live in memory (tests, gathered subsets, the mapping by default) are copied from memory.
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Raw points (uncompressed big-endian, 96 B per G1 point, 192 B per G2 point) in host memory.
#[derive(Clone, Copy)]
pub struct RawPoints<'a> {
    bytes: &'a [u8],
    /// The file the bytes are mapped from, when they are, and the file offset of `bytes[0]`.
    file: Option<MappedFrom<'a>>,
}

#[derive(Clone, Copy)]
struct MappedFrom<'a> {
    file: &'a File,
    path: &'a Path,
    offset: u64,
}

impl<'a> RawPoints<'a> {
    /// Points in memory only.
    pub fn memory(bytes: &'a [u8]) -> Self {
        RawPoints { bytes, file: None }
    }

    /// `bytes`, mapped from `file` (at `path`) at `offset`: copied out with positioned reads.
    pub(crate) fn mapped(bytes: &'a [u8], file: &'a File, path: &'a Path, offset: u64) -> Self {
        RawPoints { bytes, file: Some(MappedFrom { file, path, offset }) }
    }

    /// The bytes, for random access (a gather of scattered points reads them through the map).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Whether copies read the file rather than memory.
    pub fn reads_file(&self) -> bool {
        self.file.is_some()
    }

    /// Bytes `range` of these points (same source).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Self {
        let bytes = &self.bytes[range.clone()];
        let file = self.file.map(|m| MappedFrom { offset: m.offset + range.start as u64, ..m });
        RawPoints { bytes, file }
    }

    /// Copies bytes `at..at + dst.len()` into `dst`. A failed read (the file shrank or cannot be
    /// read) is an error naming the file and the range.
    pub fn copy_to(&self, at: usize, dst: &mut [u8]) -> Result<(), String> {
        let src = self
            .bytes
            .get(at..at + dst.len())
            .ok_or_else(|| format!("bytes {at}..{} asked of {} bytes of points", at + dst.len(), self.bytes.len()))?;
        match self.file {
            None => {
                dst.copy_from_slice(src);
                Ok(())
            }
            Some(m) => {
                let from = m.offset + at as u64;
                m.file.read_exact_at(dst, from).map_err(|e| {
                    format!("{}: cannot read bytes {from}..{}: {e}", m.path.display(), from + dst.len() as u64)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn file_and_memory_copies_agree_and_a_short_file_is_an_error() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let dir = std::env::temp_dir().join(format!("filsnark-raw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("points.bin");
        let mut f = File::create(&path).unwrap();
        f.write_all(&[0xAB; 100]).unwrap();
        f.write_all(&data).unwrap();
        drop(f);
        let file = File::open(&path).unwrap();
        let mapped = RawPoints::mapped(&data, &file, &path, 100);
        let memory = RawPoints::memory(&data);
        assert!(mapped.reads_file() && !memory.reads_file());
        for (at, len) in [(0, 10_000), (1, 4096), (5_000, 4_999), (9_999, 1)] {
            let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
            mapped.copy_to(at, &mut a).unwrap();
            memory.copy_to(at, &mut b).unwrap();
            assert_eq!(a, data[at..at + len]);
            assert_eq!(a, b);
        }
        let part = mapped.slice(300..900);
        let mut c = vec![0u8; 100];
        part.copy_to(50, &mut c).unwrap();
        assert_eq!(c, data[350..450]);
        assert!(mapped.copy_to(9_990, &mut [0u8; 20]).is_err(), "past the points' end");
        // The file shrinks under the reader: an error naming it, not a short copy.
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(5_100).unwrap();
        let e = mapped.copy_to(4_000, &mut vec![0u8; 2_000]).unwrap_err();
        assert!(e.contains("points.bin") && e.contains("cannot read"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
