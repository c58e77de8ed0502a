"""The write path: normalise input → segment → classify → extract dates/entities → draft memories."""
