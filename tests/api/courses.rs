//! Tests for this area (filled in by its issue).
