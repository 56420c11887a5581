//! The runner: jobs become workers, workers drive a queue, results come back.
