//! Reading a `.ireereplay` file: the header, then one record at a time,
//! each checked as upstream checks it (with upstream's messages) before its
//! payload is handed out. Nothing here trusts a length: every offset is
//! checked against the bytes actually present.

use iree_base::{bail, Result};

use crate::format::{
    FileHeader, RecordHeader, RecordType, Wire, FILE_MAGIC, RECORD_FLAG_OPTIONAL, VERSION_MAJOR,
};

/// One record: where it starts, its header and its payload.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// Byte offset of the record in the file.
    pub offset: usize,
    /// The header.
    pub header: RecordHeader,
    /// The payload bytes.
    pub payload: &'a [u8],
}

impl Record<'_> {
    /// The file offset of the first payload byte.
    pub fn payload_offset(&self) -> u64 {
        self.offset as u64 + u64::from(self.header.header_length)
    }

    /// `#N op @offset`, naming this record in error messages.
    pub fn describe(&self) -> String {
        use crate::format::{ObjectType, OperationCode};
        let what = if self.header.operation_code != 0 {
            OperationCode(self.header.operation_code).name()
        } else if self.header.object_type != 0 {
            ObjectType(self.header.object_type).name()
        } else {
            RecordType(self.header.record_type).name()
        };
        format!(
            "replay record #{} ({what}) at file offset {}",
            self.header.sequence_ordinal, self.offset
        )
    }
}

/// A parsed file: the header and the bytes its records occupy.
#[derive(Clone, Copy, Debug)]
pub struct ReplayFile<'a> {
    /// The header.
    pub header: FileHeader,
    /// The valid contents: the whole file, or its first `file_length`
    /// bytes when the header records a length.
    pub contents: &'a [u8],
    /// Offset of the first record.
    pub first_record: usize,
}

impl<'a> ReplayFile<'a> {
    /// Parses and checks the header of `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<ReplayFile<'a>> {
        let (header, first_record) = parse_header(bytes)?;
        let contents = if header.file_length != 0 {
            &bytes[..header.file_length as usize]
        } else {
            bytes
        };
        Ok(ReplayFile {
            header,
            contents,
            first_record,
        })
    }

    /// The header's file length, or the contents' length when the writer
    /// never closed the file (as dumps report it).
    pub fn file_length(&self) -> u64 {
        if self.header.file_length != 0 {
            self.header.file_length
        } else {
            self.contents.len() as u64
        }
    }

    /// The records in file order, each checked; iteration stops after the
    /// first error (which it yields). Sequence ordinals must count from 0.
    pub fn records(&self) -> Records<'a> {
        Records {
            contents: self.contents,
            offset: self.first_record,
            next_ordinal: 0,
            failed: false,
        }
    }
}

/// Iterator over a file's records ([`ReplayFile::records`]).
pub struct Records<'a> {
    contents: &'a [u8],
    offset: usize,
    next_ordinal: u64,
    failed: bool,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.contents.len() {
            return None;
        }
        let result = parse_record(self.contents, self.offset).and_then(|(record, next)| {
            if record.header.sequence_ordinal != self.next_ordinal {
                bail!(DataLoss, "replay record sequence ordinal mismatch");
            }
            self.next_ordinal += 1;
            self.offset = next;
            Ok(record)
        });
        self.failed = result.is_err();
        Some(result)
    }
}

/// Checks the file header, returning it and the offset of the first record.
pub fn parse_header(bytes: &[u8]) -> Result<(FileHeader, usize)> {
    let Some(header) = FileHeader::read(bytes) else {
        bail!(DataLoss, "replay file is too small for header");
    };
    if header.magic != FILE_MAGIC {
        bail!(InvalidArgument, "invalid IREE HAL replay file magic");
    }
    if header.version_major != VERSION_MAJOR {
        bail!(InvalidArgument, "unsupported IREE HAL replay file version");
    }
    let header_length = header.header_length as usize;
    if header_length < FileHeader::SIZE {
        bail!(DataLoss, "replay file header length is too small");
    }
    if header_length > bytes.len() {
        bail!(DataLoss, "replay file header extends past file end");
    }
    if header.flags != 0 {
        bail!(DataLoss, "replay file reserved flags must be zero");
    }
    if header.file_length != 0 && header.file_length < u64::from(header.header_length) {
        bail!(DataLoss, "replay file length is before the first record");
    }
    if header.file_length > bytes.len() as u64 {
        bail!(DataLoss, "replay file length extends past file contents");
    }
    Ok((header, header_length))
}

/// Checks the record at `offset` of `contents`, returning it and the offset
/// of the next one.
pub fn parse_record(contents: &[u8], offset: usize) -> Result<(Record<'_>, usize)> {
    if offset >= contents.len() {
        bail!(OutOfRange, "replay record offset is outside the file");
    }
    let remaining = contents.len() - offset;
    let Some(header) = RecordHeader::read(&contents[offset..]) else {
        bail!(DataLoss, "replay record is too small for header");
    };
    if header.record_flags & !RECORD_FLAG_OPTIONAL != 0 {
        bail!(DataLoss, "replay record reserved flags must be zero");
    }
    if !RecordType(header.record_type).is_known() && header.record_flags & RECORD_FLAG_OPTIONAL == 0
    {
        bail!(Unimplemented, "unknown required replay record type");
    }
    if header.reserved0 != 0 || header.reserved1 != 0 {
        bail!(DataLoss, "replay record reserved fields must be zero");
    }
    if header.record_length > remaining as u64 {
        bail!(DataLoss, "replay record extends past file end");
    }
    let record_length = header.record_length as usize;
    let header_length = header.header_length as usize;
    if header_length < RecordHeader::SIZE || header_length > record_length {
        bail!(DataLoss, "replay record header length is invalid");
    }
    if header.payload_length != (record_length - header_length) as u64 {
        bail!(DataLoss, "replay record payload length does not match");
    }
    let payload = &contents[offset + header_length..offset + record_length];
    Ok((
        Record {
            offset,
            header,
            payload,
        },
        offset + record_length,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::{RecordMeta, ReplayWriter};
    use iree_base::StatusCode;

    fn two_records() -> Vec<u8> {
        let mut writer = ReplayWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        let meta = RecordMeta {
            record_type: RecordType::Session,
            ..RecordMeta::default()
        };
        writer.append(&meta, &[]).unwrap();
        let meta = RecordMeta {
            record_type: RecordType::Blob,
            ..RecordMeta::default()
        };
        writer.append(&meta, &[b"abc"]).unwrap();
        writer.finish().unwrap().into_inner()
    }

    fn error_of(bytes: &[u8]) -> (StatusCode, String) {
        let file = match ReplayFile::parse(bytes) {
            Ok(file) => file,
            Err(e) => return (e.code(), e.message().to_string()),
        };
        let e = file
            .records()
            .find_map(|r| r.err())
            .expect("the file should fail");
        (e.code(), e.message().to_string())
    }

    #[test]
    fn reads_what_the_writer_wrote() {
        let bytes = two_records();
        let file = ReplayFile::parse(&bytes).unwrap();
        assert_eq!(file.file_length(), bytes.len() as u64);
        let records: Vec<_> = file.records().collect::<Result<_>>().unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].header.sequence_ordinal, 1);
        assert_eq!(records[1].payload, b"abc");
        assert_eq!(records[1].payload_offset(), 24 + 96 + 96);
    }

    #[test]
    fn bad_files_fail_with_upstreams_messages() {
        let good = two_records();
        assert_eq!(
            error_of(&good[..10]),
            (
                StatusCode::DataLoss,
                "replay file is too small for header".into()
            )
        );
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(
            error_of(&bad).1,
            "invalid IREE HAL replay file magic".to_string()
        );
        let mut bad = good.clone();
        bad[4] = 3;
        assert_eq!(error_of(&bad).1, "unsupported IREE HAL replay file version");
        assert_eq!(
            error_of(&good[..good.len() - 1]).1,
            "replay file length extends past file contents"
        );
        // A record longer than the file.
        let mut bad = good.clone();
        bad[16..24].copy_from_slice(&0u64.to_le_bytes());
        let last = 24 + 96;
        bad[last..last + 8].copy_from_slice(&1000u64.to_le_bytes());
        assert_eq!(error_of(&bad).1, "replay record extends past file end");
        // Out-of-order sequence ordinals.
        let mut bad = good.clone();
        bad[last + 16..last + 24].copy_from_slice(&5u64.to_le_bytes());
        assert_eq!(error_of(&bad).1, "replay record sequence ordinal mismatch");
        // An unknown required record type.
        let mut bad = good;
        bad[last + 60] = 9;
        assert_eq!(
            error_of(&bad),
            (
                StatusCode::Unimplemented,
                "unknown required replay record type".into()
            )
        );
    }
}
