//! The compiled constraints' file: a header naming what it holds, a body, and the SHA-256 of
//! the body. Everything little-endian.
//!
//! ```text
//! header   magic "FSNKCNST" · u32 format version · u32 key length · key (UTF-8) · u64 body length
//! body     u32 stem length · stem
//!          u64 × 7: prefix inputs, aux, constraints · challenge inputs, aux, constraints · challenges
//!          u64 × 3: moving range lo, hi, offsets n · u32 × n offsets (lo = hi = n = 0: none)
//!          u64 table length · table (32-byte canonical little-endian scalars)
//!          head block · template block, each: u64 rows, then for A, B, C:
//!              u64 nnz · u32 × (rows + 1) row pointers · u32 × nnz columns · u32 × nnz codes
//! trailer  SHA-256 of the body (32 bytes)
//! ```
//! A load checks, in order: magic, version, key, that the file is exactly header + body +
//! trailer long, every count against the bytes left in the body (before allocating), the
//! checksum, and then the structure (row pointers, columns, codes, the moving range and its
//! offsets: [`Compiled::from_parts`]). Its errors name the file.
//!
//! Version 2 added the moving range (SnapDeals' template). A version 1 file (a SnapDeals shape
//! kept whole, 4.3 GB at 32GiB) is refused by its version; the cache never opens one, its file
//! names hashing the version, and compiles the shape again, then removes the old file
//! ([`version_of`] reads a header's version for that).
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, ensure, Context, Result};
use blstrs::Scalar;
use sha2::{Digest, Sha256};

use super::compiled::{Block, Compiled, Csr};
use super::template::Moving;
use crate::circuit::window::Span;

pub const MAGIC: &[u8; 8] = b"FSNKCNST";
/// Bumped whenever the body's layout or meaning changes (2: the moving range).
pub const FORMAT_VERSION: u32 = 2;

fn header_len(key: &str) -> u64 {
    8 + 4 + 4 + key.len() as u64 + 8
}

fn block_len(b: &Block) -> u64 {
    8 + b.m.iter().map(|c| 8 + 4 * (c.row_ptr.len() + c.cols.len() + c.codes.len()) as u64).sum::<u64>()
}

fn body_len(c: &Compiled) -> u64 {
    4 + c.stem.len() as u64
        + 7 * 8
        + 3 * 8
        + 4 * c.moving.offsets.len() as u64
        + 8
        + 32 * c.table.len() as u64
        + block_len(&c.head)
        + block_len(&c.template)
}

/// Writes `c` under `key` to `path` (the caller makes that atomic).
pub fn write(path: &Path, key: &str, c: &Compiled) -> Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    w.write_all(MAGIC)?;
    w.write_all(&FORMAT_VERSION.to_le_bytes())?;
    w.write_all(&(key.len() as u32).to_le_bytes())?;
    w.write_all(key.as_bytes())?;
    w.write_all(&body_len(c).to_le_bytes())?;
    let mut body = Hashing { inner: &mut w, hash: Sha256::new() };
    body.put(&(c.stem.len() as u32).to_le_bytes())?;
    body.put(c.stem.as_bytes())?;
    let (p, q) = (&c.prefix, &c.per);
    for v in [p.inputs, p.aux, p.constraints, q.inputs, q.aux, q.constraints, c.challenges] {
        body.put(&(v as u64).to_le_bytes())?;
    }
    let m = &c.moving;
    for v in [m.lo, m.hi, m.offsets.len()] {
        body.put(&(v as u64).to_le_bytes())?;
    }
    body.put_u32s(&m.offsets)?;
    body.put(&(c.table.len() as u64).to_le_bytes())?;
    for s in &c.table {
        body.put(&s.to_bytes_le())?;
    }
    for block in [&c.head, &c.template] {
        body.put(&(block.rows as u64).to_le_bytes())?;
        for csr in &block.m {
            body.put(&(csr.cols.len() as u64).to_le_bytes())?;
            for v in [&csr.row_ptr, &csr.cols, &csr.codes] {
                body.put_u32s(v)?;
            }
        }
    }
    let digest = body.hash.finalize();
    w.write_all(&digest)?;
    let file = w.into_inner().map_err(|e| anyhow!("writing {}: {}", path.display(), e.error()))?;
    file.sync_all().with_context(|| format!("syncing {}", path.display()))?;
    Ok(())
}

struct Hashing<'a, W> {
    inner: &'a mut W,
    hash: Sha256,
}

impl<W: Write> Hashing<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)?;
        Ok(())
    }

    fn put_u32s(&mut self, v: &[u32]) -> Result<()> {
        for chunk in v.chunks(1 << 14) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
            self.put(&bytes)?;
        }
        Ok(())
    }
}

/// Reads the compiled constraints stored under `key` at `path`. An error names the file and
/// says what is wrong with it.
/// The format version in `path`'s header, if it is a compiled-constraints file at all.
pub fn version_of(path: &Path) -> Option<u32> {
    let mut head = [0u8; 12];
    File::open(path).ok()?.read_exact(&mut head).ok()?;
    (&head[..8] == MAGIC).then(|| u32::from_le_bytes(head[8..12].try_into().unwrap()))
}

pub fn read(path: &Path, key: &str) -> Result<Compiled> {
    read_file(path, key).with_context(|| format!("compiled constraints {}", path.display()))
}

fn read_file(path: &Path, key: &str) -> Result<Compiled> {
    let file = File::open(path)?;
    let file_len = file.metadata()?.len();
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut head = [0u8; 16];
    r.read_exact(&mut head).map_err(|_| anyhow!("shorter than a header"))?;
    ensure!(&head[..8] == MAGIC, "not a compiled-constraints file (magic {:?})", String::from_utf8_lossy(&head[..8]));
    let version = u32::from_le_bytes(head[8..12].try_into().unwrap());
    ensure!(version == FORMAT_VERSION, "format version {version}, this filsnark reads {FORMAT_VERSION}");
    let key_len = u32::from_le_bytes(head[12..16].try_into().unwrap()) as u64;
    ensure!(key_len < 1 << 16 && 16 + key_len + 8 <= file_len, "a key of {key_len} bytes does not fit the file");
    let mut theirs = vec![0u8; key_len as usize];
    r.read_exact(&mut theirs)?;
    ensure!(
        theirs == key.as_bytes(),
        "holds another shape or version: key {:?}, wanted {key:?}",
        String::from_utf8_lossy(&theirs)
    );
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let body = u64::from_le_bytes(len);
    let want = header_len(key).checked_add(body).and_then(|n| n.checked_add(32));
    ensure!(
        want == Some(file_len),
        "{file_len} bytes where the header announces {}",
        want.map_or("too many".into(), |n| n.to_string())
    );
    let mut b = Body { inner: &mut r, hash: Sha256::new(), left: body };
    let compiled = read_body(&mut b)?;
    ensure!(b.left == 0, "{} bytes of the body are left unread", b.left);
    let digest = b.hash.finalize();
    let mut stored = [0u8; 32];
    r.read_exact(&mut stored)?;
    ensure!(digest.as_slice() == stored, "the checksum of the body does not match (the file is corrupt)");
    let Parts { stem, prefix, per, challenges, moving, table, head, template } = compiled;
    Compiled::from_parts(stem, prefix, per, challenges, head, template, moving, table)
}

struct Parts {
    stem: String,
    prefix: Span,
    per: Span,
    challenges: usize,
    moving: Moving,
    table: Vec<Scalar>,
    head: Block,
    template: Block,
}

fn read_body<R: Read>(b: &mut Body<'_, R>) -> Result<Parts> {
    let stem_len = b.u32()? as usize;
    let stem = String::from_utf8(b.bytes(stem_len)?).map_err(|_| anyhow!("the stem is not UTF-8"))?;
    let mut v = [0usize; 7];
    for x in v.iter_mut() {
        *x = b.count()?;
    }
    let prefix = Span { inputs: v[0], aux: v[1], constraints: v[2], nnz: [0; 3] };
    let per = Span { inputs: v[3], aux: v[4], constraints: v[5], nnz: [0; 3] };
    let (lo, hi) = (b.count()?, b.count()?);
    let n = b.count()?;
    let offsets = b.u32s(n).context("the moving range's offset table")?;
    let moving = Moving { lo, hi, offsets };
    let n = b.count()?;
    b.need(n, 32)?;
    let mut table = Vec::with_capacity(n);
    for i in 0..n {
        let bytes: [u8; 32] = b.bytes(32)?.try_into().unwrap();
        let s = Option::<Scalar>::from(Scalar::from_bytes_le(&bytes))
            .ok_or_else(|| anyhow!("table element {i} is not a canonical scalar"))?;
        table.push(s);
    }
    let head = read_block(b)?;
    let template = read_block(b)?;
    Ok(Parts { stem, prefix, per, challenges: v[6], moving, table, head, template })
}

fn read_block<R: Read>(b: &mut Body<'_, R>) -> Result<Block> {
    let rows = b.count()?;
    let mut m: [Csr; 3] = Default::default();
    for csr in m.iter_mut() {
        let nnz = b.count()?;
        csr.row_ptr = b.u32s(rows.checked_add(1).ok_or_else(|| anyhow!("row count overflows"))?)?;
        csr.cols = b.u32s(nnz)?;
        csr.codes = b.u32s(nnz)?;
    }
    Ok(Block { rows, m })
}

/// The body being read: hashed as it goes, every count checked against what is left.
struct Body<'a, R> {
    inner: &'a mut R,
    hash: Sha256,
    left: u64,
}

impl<R: Read> Body<'_, R> {
    fn need(&self, n: usize, size: u64) -> Result<()> {
        match (n as u64).checked_mul(size) {
            Some(bytes) if bytes <= self.left => Ok(()),
            _ => bail!("a count of {n} runs past the end of the body"),
        }
    }

    fn fill(&mut self, buf: &mut [u8]) -> Result<()> {
        self.need(buf.len(), 1)?;
        self.inner.read_exact(buf).context("reading the body")?;
        self.hash.update(&*buf);
        self.left -= buf.len() as u64;
        Ok(())
    }

    fn bytes(&mut self, n: usize) -> Result<Vec<u8>> {
        self.need(n, 1)?;
        let mut v = vec![0u8; n];
        self.fill(&mut v)?;
        Ok(v)
    }

    fn u32(&mut self) -> Result<u32> {
        let mut x = [0u8; 4];
        self.fill(&mut x)?;
        Ok(u32::from_le_bytes(x))
    }

    fn count(&mut self) -> Result<usize> {
        let mut x = [0u8; 8];
        self.fill(&mut x)?;
        usize::try_from(u64::from_le_bytes(x)).map_err(|_| anyhow!("a count does not fit this machine"))
    }

    fn u32s(&mut self, n: usize) -> Result<Vec<u32>> {
        self.need(n, 4)?;
        let mut out = Vec::with_capacity(n);
        let mut buf = vec![0u8; 4 << 14];
        while out.len() < n {
            let k = (n - out.len()).min(1 << 14);
            self.fill(&mut buf[..4 * k])?;
            out.extend(buf[..4 * k].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())));
        }
        Ok(out)
    }
}
