//! min/max/mean/stddev of a stream of samples, merged the way fio merges them.

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub samples: u64,
    pub min: u64,
    pub max: u64,
    _todo: (),
}

impl Summary {
    #[inline]
    pub fn add(&mut self, _value: u64) {
        todo!()
    }
    pub fn merge(&mut self, _other: &Summary) {
        todo!()
    }
    pub fn mean(&self) -> f64 {
        todo!()
    }
    /// Sample standard deviation (n-1), 0 with fewer than two samples.
    pub fn stddev(&self) -> f64 {
        todo!()
    }
}
