//! xz decoded on several threads: the blocks of an archive written by `xz -T` (the
//! default of xz 5.6 and later) are independent, and a multi-gigabyte sosreport `.tar.xz`
//! is otherwise decoded on one core while the others wait for it.

use std::io::{BufRead, Read};

use liblzma::bufread::XzDecoder;
use liblzma::stream::{MtStreamBuilder, Stream};

/// Below this many compressed bytes one thread decodes: threads cost more than they
/// give on small files, and a file of one block cannot be split anyway.
pub const THREADED_FROM: u64 = 4 << 20;
/// The threads may buffer this much between them; liblzma uses fewer threads rather
/// than more memory (an `xz -6 -T` block is 24 MiB).
const MEMORY_FOR_THREADS: u64 = 128 << 20;

/// A reader of every xz stream of `input`, one after the other (as `xz -d` reads
/// concatenated files), each decoded on up to `threads` threads.
pub struct ThreadedXz<R: BufRead> {
    decoder: Option<XzDecoder<R>>,
    threads: u32,
}

impl<R: BufRead> ThreadedXz<R> {
    pub fn new(input: R, threads: u32) -> std::io::Result<ThreadedXz<R>> {
        Ok(ThreadedXz {
            decoder: Some(XzDecoder::new_stream(input, stream(threads)?)),
            threads,
        })
    }
}

fn stream(threads: u32) -> std::io::Result<Stream> {
    MtStreamBuilder::new()
        .threads(threads.max(1))
        .memlimit_threading(MEMORY_FOR_THREADS)
        .memlimit_stop(u64::MAX)
        .decoder()
        .map_err(std::io::Error::other)
}

impl<R: BufRead> Read for ThreadedXz<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let Some(decoder) = self.decoder.as_mut() else {
                return Ok(0);
            };
            let n = decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The end of a stream: another may follow, after padding of zero bytes.
            let Some(decoder) = self.decoder.take() else {
                return Ok(0);
            };
            let mut input = decoder.into_inner();
            loop {
                let available = input.fill_buf()?;
                if available.is_empty() {
                    return Ok(0);
                }
                let zeros = available.iter().take_while(|&&b| b == 0).count();
                if zeros < available.len() {
                    input.consume(zeros);
                    break;
                }
                let all = available.len();
                input.consume(all);
            }
            self.decoder = Some(XzDecoder::new_stream(input, stream(self.threads)?));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// `text` as an .xz stream of blocks of `block` bytes (as `xz -T` writes).
    fn xz_blocks(text: &[u8], block: u64) -> Vec<u8> {
        let stream = MtStreamBuilder::new()
            .threads(2)
            .block_size(block)
            .preset(1)
            .encoder()
            .unwrap();
        let mut writer = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
        writer.write_all(text).unwrap();
        writer.finish().unwrap()
    }

    fn log(lines: usize, tag: &str) -> Vec<u8> {
        (0..lines)
            .map(|i| {
                format!(
                    "2024-03-01 10:00:{:02}.000 7 INFO nova.compute.manager [-] {tag} line {i}\n",
                    i % 60
                )
            })
            .collect::<String>()
            .into_bytes()
    }

    fn decode(data: &[u8], threads: u32) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        ThreadedXz::new(data, threads)?.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn blocks_decode_on_two_threads_to_the_same_bytes() {
        let text = log(200_000, "one");
        let packed = xz_blocks(&text, 1 << 20);
        assert_eq!(decode(&packed, 2).unwrap(), text);
        assert_eq!(decode(&packed, 1).unwrap(), text);
    }

    #[test]
    fn concatenated_streams_and_padding_are_all_read() {
        let (a, b) = (log(5_000, "first"), log(7_000, "second"));
        let mut packed = xz_blocks(&a, 64 << 10);
        packed.extend_from_slice(&[0; 8]);
        packed.extend(xz_blocks(&b, 64 << 10));
        assert_eq!(decode(&packed, 2).unwrap(), [a, b].concat());
    }

    #[test]
    fn a_cut_stream_is_an_error_after_what_it_held() {
        let text = log(50_000, "cut");
        let packed = xz_blocks(&text, 256 << 10);
        let cut = &packed[..packed.len() / 2];
        let mut out = Vec::new();
        let result = ThreadedXz::new(cut, 2).unwrap().read_to_end(&mut out);
        assert!(result.is_err(), "a stream cut in half is damage");
        assert!(text.starts_with(&out));
    }
}
