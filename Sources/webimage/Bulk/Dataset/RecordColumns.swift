/// Which of the optional metadata columns a job writes.
struct RecordColumns: Sendable {
    /// `compute_hash`; `nil` for none.
    var hash: SampleHash? = .sha256
    /// `extract_exif`: an `exif` column.
    var exif = false
}
