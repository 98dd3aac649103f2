"""Each command's config and run(): what it reads, in which order, and what it writes."""
