"""The read path: candidates (dense, lexical) → fuse → weight → threshold → hits."""
