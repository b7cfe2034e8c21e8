"""Benchmarks and the synthetic-fabric generator shared with the bundled example."""
