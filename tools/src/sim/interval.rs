//! Intervals for the rates `crown sim` reports. All take integer counts, so the same
//! counts always give the same bytes.

/// The normal quantile `z` for a two-sided interval at `confidence` (0.95 → 1.96).
pub fn z_for(confidence: f64) -> f64 {
    if (confidence - 0.95).abs() < 1e-12 {
        return 1.959_963_984_540_054;
    }
    inverse_normal(1.0 - (1.0 - confidence) / 2.0)
}

/// The correction of many cards compared at once (Bonferroni): the confidence each of
/// `comparisons` intervals is drawn at, so that all of them together hold with
/// `confidence` (with 52 cards at 95%, each at 99.9%). Without it one card in twenty
/// looks better or worse than the rest by chance alone.
pub fn each_of(confidence: f64, comparisons: usize) -> f64 {
    1.0 - (1.0 - confidence) / comparisons.max(1) as f64
}

/// Acklam's rational approximation of the standard normal quantile (relative error
/// below 1.2e-9), enough for interval widths.
#[allow(clippy::excessive_precision)] // the published coefficients, as published
fn inverse_normal(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.383_577_518_672_69e2,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];
    let low = 0.02425;
    if p < low {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - low {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -inverse_normal(1.0 - p)
    }
}

/// Wilson score interval (95%) for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    wilson_z(k, n, z_for(0.95))
}

/// Wilson score interval for `k` of `n` at normal quantile `z`.
pub fn wilson_z(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f) + z * z / (4.0 * n_f * n_f)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// `k / n`, 0 when `n` is 0.
pub fn rate(k: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        k as f64 / n as f64
    }
}

/// Difference `k1/n1 - k2/n2` of two independent proportions with Newcombe's hybrid score
/// interval (his method 10, built from the two Wilson intervals).
pub fn newcombe(k1: u64, n1: u64, k2: u64, n2: u64, z: f64) -> (f64, f64, f64) {
    let (p1, p2) = (rate(k1, n1), rate(k2, n2));
    let d = p1 - p2;
    if n1 == 0 || n2 == 0 {
        return (d, -1.0, 1.0);
    }
    let (l1, u1) = wilson_z(k1, n1, z);
    let (l2, u2) = wilson_z(k2, n2, z);
    let lo = d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
    let hi = d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
    (d, lo.max(-1.0), hi.min(1.0))
}

/// Paired difference of two proportions over `n` paired games, from the discordant
/// counts: `b_only` games where only side B had the event, `a_only` where only A had it.
/// The difference is `(b_only - a_only) / n` with its Wald interval for paired data
/// (the interval excludes 0 exactly when McNemar's test without continuity correction
/// rejects at that level).
pub fn paired(n: u64, b_only: u64, a_only: u64, z: f64) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let n_f = n as f64;
    let (b, a) = (b_only as f64, a_only as f64);
    let d = (b - a) / n_f;
    let var = ((b + a) - (b - a).powi(2) / n_f).max(0.0) / (n_f * n_f);
    let half = z * var.sqrt();
    (d, d - half, d + half)
}

/// Mean of paired differences from their integer sums, with a normal interval.
pub fn mean_diff(n: u64, sum: i64, sum_sq: u64, z: f64) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let n_f = n as f64;
    let mean = sum as f64 / n_f;
    if n < 2 {
        return (mean, mean, mean);
    }
    let var = ((sum_sq as f64 - (sum as f64).powi(2) / n_f) / (n_f - 1.0)).max(0.0);
    let half = z * (var / n_f).sqrt();
    (mean, mean - half, mean + half)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles() {
        assert!((z_for(0.95) - 1.96).abs() < 1e-3);
        assert!((z_for(0.99) - 2.5758).abs() < 1e-3);
        assert!((z_for(0.90) - 1.6449).abs() < 1e-3);
    }

    #[test]
    fn intervals_hold_their_estimate() {
        let (lo, hi) = wilson(30, 100);
        assert!(lo < 0.3 && 0.3 < hi && (lo - 0.2189).abs() < 1e-3 && (hi - 0.3958).abs() < 1e-3);
        // Newcombe's worked example: 56/70 vs 48/80 → 0.2, [0.0524, 0.3339].
        let (d, lo, hi) = newcombe(56, 70, 48, 80, z_for(0.95));
        assert!((d - 0.2).abs() < 1e-9 && (lo - 0.0524).abs() < 1e-3 && (hi - 0.3339).abs() < 1e-3, "{lo} {hi}");
        let (d, lo, hi) = paired(100, 20, 5, z_for(0.95));
        assert!((d - 0.15).abs() < 1e-9 && lo > 0.0 && hi < 0.3);
        let (_, lo, hi) = paired(100, 6, 5, z_for(0.95));
        assert!(lo < 0.0 && hi > 0.0);
        let (m, lo, hi) = mean_diff(4, 4, 10, z_for(0.95));
        assert!((m - 1.0).abs() < 1e-9 && lo < 1.0 && hi > 1.0);
    }
}
