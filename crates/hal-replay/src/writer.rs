//! Writing a `.ireereplay` file: a header whose length stays 0 while the
//! file is open, records appended in capture order (their sequence
//! ordinals assigned here, from 0), and on [`ReplayWriter::finish`] the
//! final length written back into the header, as upstream's writer does.

use std::io::{Seek, SeekFrom, Write};

use iree_base::{Result, Status, StatusCode};

use crate::format::{
    FileHeader, ObjectType, OperationCode, PayloadType, RecordHeader, RecordType, Wire, FILE_MAGIC,
    VERSION_MAJOR, VERSION_MINOR,
};

/// What a record is about; everything in its header but the lengths and
/// the sequence ordinal.
#[derive(Clone, Copy, Debug)]
pub struct RecordMeta {
    /// The record's kind.
    pub record_type: RecordType,
    /// The payload schema.
    pub payload_type: PayloadType,
    /// The object kind (object records and operations on an object).
    pub object_type: ObjectType,
    /// The call (operation records).
    pub operation_code: OperationCode,
    /// The device.
    pub device_id: u64,
    /// The primary object.
    pub object_id: u64,
    /// The secondary object.
    pub related_object_id: u64,
    /// The capturing thread, or 0.
    pub thread_id: u64,
    /// The call's status code.
    pub status_code: u32,
    /// [`crate::format::RECORD_FLAG_OPTIONAL`] or 0.
    pub record_flags: u16,
}

impl Default for RecordMeta {
    fn default() -> Self {
        RecordMeta {
            record_type: RecordType::None,
            payload_type: PayloadType::None,
            object_type: ObjectType::None,
            operation_code: OperationCode::None,
            device_id: 0,
            object_id: 0,
            related_object_id: 0,
            thread_id: 0,
            status_code: 0,
            record_flags: 0,
        }
    }
}

fn io_error(e: std::io::Error) -> Status {
    Status::new(
        StatusCode::Unavailable,
        format!("writing the replay file: {e}"),
    )
}

/// Appends records to a replay file.
pub struct ReplayWriter<W: Write + Seek> {
    out: W,
    offset: u64,
    next_ordinal: u64,
}

impl<W: Write + Seek> ReplayWriter<W> {
    /// Starts a file on `out` (positioned at its start): writes the header.
    pub fn new(mut out: W) -> Result<ReplayWriter<W>> {
        out.write_all(&file_header(0).to_bytes())
            .map_err(io_error)?;
        Ok(ReplayWriter {
            out,
            offset: FileHeader::SIZE as u64,
            next_ordinal: 0,
        })
    }

    /// The number of records written.
    pub fn record_count(&self) -> u64 {
        self.next_ordinal
    }

    /// The file offset the next record starts at.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Rewrites the status code of the record at `record_offset` (one
    /// [`ReplayWriter::append`] wrote): a call recorded before it was made
    /// that then failed.
    pub fn set_status(&mut self, record_offset: u64, status_code: u32) -> Result<()> {
        // The status code's offset in the record header.
        const STATUS_CODE: u64 = 76;
        if record_offset + RecordHeader::SIZE as u64 > self.offset {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("no record at offset {record_offset}"),
            ));
        }
        self.out
            .seek(SeekFrom::Start(record_offset + STATUS_CODE))
            .and_then(|_| self.out.write_all(&status_code.to_le_bytes()))
            .and_then(|()| self.out.seek(SeekFrom::Start(self.offset)).map(drop))
            .map_err(io_error)
    }

    /// Appends a record whose payload is the concatenation of `parts`;
    /// returns its sequence ordinal.
    pub fn append(&mut self, meta: &RecordMeta, parts: &[&[u8]]) -> Result<u64> {
        if !meta.record_type.is_known() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "cannot write unknown or reserved replay record type",
            ));
        }
        let payload_length: u64 = parts.iter().map(|p| p.len() as u64).sum();
        let ordinal = self.next_ordinal;
        let header = RecordHeader {
            record_length: RecordHeader::SIZE as u64 + payload_length,
            payload_length,
            sequence_ordinal: ordinal,
            thread_id: meta.thread_id,
            device_id: meta.device_id,
            object_id: meta.object_id,
            related_object_id: meta.related_object_id,
            header_length: RecordHeader::SIZE as u32,
            record_type: meta.record_type.0,
            record_flags: meta.record_flags,
            payload_type: meta.payload_type.0,
            object_type: meta.object_type.0,
            operation_code: meta.operation_code.0,
            status_code: meta.status_code,
            ..RecordHeader::default()
        };
        self.out.write_all(&header.to_bytes()).map_err(io_error)?;
        for part in parts {
            self.out.write_all(part).map_err(io_error)?;
        }
        self.offset += header.record_length;
        self.next_ordinal += 1;
        Ok(ordinal)
    }

    /// Writes the final length into the header and returns the output.
    pub fn finish(mut self) -> Result<W> {
        self.out.flush().map_err(io_error)?;
        self.out.seek(SeekFrom::Start(0)).map_err(io_error)?;
        self.out
            .write_all(&file_header(self.offset).to_bytes())
            .map_err(io_error)?;
        self.out
            .seek(SeekFrom::Start(self.offset))
            .map_err(io_error)?;
        self.out.flush().map_err(io_error)?;
        Ok(self.out)
    }
}

fn file_header(file_length: u64) -> FileHeader {
    FileHeader {
        magic: FILE_MAGIC,
        version_major: VERSION_MAJOR,
        version_minor: VERSION_MINOR,
        header_length: FileHeader::SIZE as u32,
        flags: 0,
        file_length,
    }
}
