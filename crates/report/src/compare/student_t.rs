//! Student's t distribution: the two-sided 95% quantile that turns a
//! standard error into a confidence interval. Computed from the regularized
//! incomplete beta function (continued fraction, as in Numerical Recipes'
//! `betacf`), so that Welch's non-integer degrees of freedom need no table.

/// The t value with 2.5% of the distribution above it: a 95% interval is
/// the mean ± this × the standard error. `df` must be positive.
pub fn quantile_975(df: f64) -> f64 {
    quantile(0.975, df)
}

/// The value below which `p` (0.5 < p < 1) of Student's t with `df`
/// degrees of freedom lies, found by bisection on the CDF (which rises
/// monotonically, so bisection cannot miss).
fn quantile(p: f64, df: f64) -> f64 {
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while cdf(high, df) < p {
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if cdf(mid, df) < p {
            low = mid;
        } else {
            high = mid;
        }
        if high - low <= 1e-12 * high {
            break;
        }
    }
    0.5 * (low + high)
}

/// P(T <= t) for t >= 0.
fn cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    1.0 - 0.5 * incomplete_beta(x, 0.5 * df, 0.5)
}

/// The regularized incomplete beta function I_x(a, b).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The continued fraction converges fast only below this point; above
    // it, the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) is used.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * continued_fraction(x, a, b) / a
    } else {
        1.0 - front * continued_fraction(1.0 - x, b, a) / b
    }
}

/// The continued fraction of I_x(a, b), by the modified Lentz method.
fn continued_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        // The even step, then the odd one.
        for num in [
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ] {
            d = 1.0 + num * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + num / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos' approximation, g = 7, nine terms).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_printed_table() {
        // Two-sided 95% points of Student's t, from any statistics table.
        for (df, t) in [
            (1.0, 12.7062),
            (2.0, 4.3027),
            (3.0, 3.1824),
            (4.0, 2.7764),
            (8.0, 2.3060),
            (10.0, 2.2281),
            (30.0, 2.0423),
            (120.0, 1.9799),
        ] {
            let got = quantile_975(df);
            assert!((got - t).abs() < 5e-4, "df {df}: {got} vs {t}");
        }
    }

    #[test]
    fn tends_to_the_normal_quantile() {
        assert!((quantile_975(1e7) - 1.95996).abs() < 1e-4);
    }

    #[test]
    fn falls_between_integer_degrees_of_freedom() {
        let t = quantile_975(4.5);
        assert!(t < quantile_975(4.0) && t > quantile_975(5.0), "{t}");
    }

    #[test]
    fn gamma_of_small_integers_is_a_factorial() {
        for (x, fact) in [(1.0, 1.0), (2.0, 1.0), (5.0, 24.0), (7.0, 720.0_f64)] {
            assert!((ln_gamma(x) - fact.ln()).abs() < 1e-10, "{x}");
        }
    }
}
