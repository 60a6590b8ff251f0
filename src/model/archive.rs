//! Zip archives of named files (a member's data export): deflated, in the order given.

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;

/// The zip of `files` ((name, bytes)).
pub fn zip(files: &[(String, Vec<u8>)]) -> zip::result::ZipResult<Vec<u8>> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        w.start_file(name.as_str(), options)?;
        w.write_all(bytes)?;
    }
    Ok(w.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_back_out_as_they_went_in() -> zip::result::ZipResult<()> {
        let files =
            vec![("a.json".to_owned(), b"[1]".to_vec()), ("d/b.png".to_owned(), vec![0, 1, 2])];
        let bytes = zip(&files)?;
        let mut z = zip::ZipArchive::new(Cursor::new(bytes))?;
        assert_eq!(z.len(), 2);
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut z.by_name("d/b.png")?, &mut out)?;
        assert_eq!(out, vec![0, 1, 2]);
        Ok(())
    }
}
