//! Arithmetic in option values: `(1+2)*4k`-style expressions, as fio
//! evaluates a value that starts with `(` and the result of `$mb_memory/2`.
//!
//! Operators are `+ - * / % ^` with the usual precedence, unary minus and
//! parentheses. Numbers may be decimal, hexadecimal (`0x`) or fractional and
//! may carry a unit suffix; the caller says what a suffix is worth.

/// Evaluates `text`; `unit` turns a number's suffix (possibly empty) into the
/// factor to multiply it by, or says why it is not a unit.
pub(crate) fn eval(text: &str, unit: &dyn Fn(&str) -> Result<f64, String>) -> Result<f64, String> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        unit,
        depth: 0,
    };
    let value = parser.expr()?;
    parser.skip_space();
    if parser.pos != parser.bytes.len() {
        return Err(format!(
            "unexpected '{}' in expression '{text}'",
            &text[parser.pos..]
        ));
    }
    if !value.is_finite() {
        return Err(format!("expression '{text}' has no finite value"));
    }
    Ok(value)
}

/// Deep nesting is refused rather than allowed to exhaust the stack.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    unit: &'a dyn Fn(&str) -> Result<f64, String>,
    depth: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.bytes.get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<f64, String> {
        let mut value = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let rhs = self.term()?;
            value = if op == b'+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<f64, String> {
        let mut value = self.power()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            let rhs = self.power()?;
            if op != b'*' && rhs == 0.0 {
                return Err(format!("division by zero in '{}'", self.text));
            }
            value = match op {
                b'*' => value * rhs,
                b'/' => value / rhs,
                _ => value % rhs,
            };
        }
        Ok(value)
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.unary()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let exp = self.power()?;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                self.nested(|p| p.unary()).map(|v| -v)
            }
            Some(b'+') => {
                self.pos += 1;
                self.nested(|p| p.unary())
            }
            _ => self.primary(),
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<f64, String>) -> Result<f64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("expression '{}' is nested too deeply", self.text));
        }
        let value = f(self);
        self.depth -= 1;
        value
    }

    fn primary(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let value = self.nested(|p| p.expr())?;
                if self.peek() != Some(b')') {
                    return Err(format!("missing ')' in expression '{}'", self.text));
                }
                self.pos += 1;
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(_) => Err(format!(
                "expected a number at '{}' in expression '{}'",
                &self.text[self.pos..],
                self.text
            )),
            None => Err(format!("expression '{}' ends too early", self.text)),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        let start = self.pos;
        let value = if self.text[start..].starts_with("0x") || self.text[start..].starts_with("0X")
        {
            self.pos += 2;
            let digits = self.pos;
            while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_hexdigit() {
                self.pos += 1;
            }
            u64::from_str_radix(&self.text[digits..self.pos], 16)
                .map_err(|_| format!("bad hexadecimal number in '{}'", self.text))?
                as f64
        } else {
            while self.pos < self.bytes.len()
                && (self.bytes[self.pos].is_ascii_digit() || self.bytes[self.pos] == b'.')
            {
                self.pos += 1;
            }
            self.text[start..self.pos].parse::<f64>().map_err(|_| {
                format!(
                    "bad number '{}' in '{}'",
                    &self.text[start..self.pos],
                    self.text
                )
            })?
        };
        let suffix_start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_alphabetic() {
            self.pos += 1;
        }
        let factor = (self.unit)(&self.text[suffix_start..self.pos])?;
        Ok(value * factor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(suffix: &str) -> Result<f64, String> {
        match suffix.to_ascii_lowercase().as_str() {
            "" => Ok(1.0),
            "k" => Ok(1024.0),
            "m" => Ok(1024.0 * 1024.0),
            other => Err(format!("unknown unit '{other}'")),
        }
    }

    #[test]
    fn precedence_and_parentheses() {
        assert_eq!(eval("(1+2)*4k", &bytes), Ok(12288.0));
        assert_eq!(eval("1+2*4", &bytes), Ok(9.0));
        assert_eq!(eval("2^3^2", &bytes), Ok(512.0));
        assert_eq!(eval("-(4 - 6)", &bytes), Ok(2.0));
        assert_eq!(eval("7 % 4", &bytes), Ok(3.0));
        assert_eq!(eval("0x10 / 4", &bytes), Ok(4.0));
        assert_eq!(eval("1.5m", &bytes), Ok(1572864.0));
    }

    #[test]
    fn bad_expressions_are_errors() {
        assert!(eval("(1+2", &bytes).unwrap_err().contains("missing ')'"));
        assert!(eval("1/0", &bytes)
            .unwrap_err()
            .contains("division by zero"));
        assert!(eval("1+", &bytes).is_err());
        assert!(eval("2q", &bytes).unwrap_err().contains("unknown unit"));
        assert!(eval("1 2", &bytes).is_err());
        assert!(eval(&"-".repeat(1000), &bytes)
            .unwrap_err()
            .contains("nested"));
        assert!(eval("10^400", &bytes).unwrap_err().contains("finite"));
    }
}
