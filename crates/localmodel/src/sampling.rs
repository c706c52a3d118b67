/// How the next token is chosen from the logits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// The most likely token (ties: the lowest id).
    Greedy,
    /// Softmax at `temperature`, keeping the most likely tokens whose probabilities add up to
    /// `top_p`, drawn from a generator seeded with `seed`: the same seed gives the same tokens
    /// natively and in the browser.
    Random { temperature: f64, top_p: f64, seed: u64 },
}

/// Chooses tokens; holds the random state of a seeded run.
pub struct Sampler {
    sampling: Sampling,
    state: u64,
}

impl Sampler {
    pub fn new(sampling: Sampling) -> Self {
        let state = match sampling {
            Sampling::Random { seed, .. } => seed,
            Sampling::Greedy => 0,
        };
        Sampler { sampling, state }
    }

    pub fn next_token(&mut self, logits: &[f32]) -> u32 {
        match self.sampling {
            Sampling::Random { temperature, top_p, .. } if temperature > 0.0 && top_p > 0.0 => {
                let u = self.next_unit();
                pick_top_p(logits, temperature, top_p, u)
            }
            _ => argmax(logits),
        }
    }

    /// SplitMix64: tiny, portable and the same on every target (no platform entropy).
    fn next_unit(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

pub(crate) fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate() {
        if l > logits[best] {
            best = i;
        }
    }
    best as u32
}

/// The token at cumulative probability `u` (in [0, 1)) among the nucleus of mass `top_p`.
fn pick_top_p(logits: &[f32], temperature: f64, top_p: f64, u: f64) -> u32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let mut probs: Vec<(u32, f64)> =
        logits.iter().enumerate().map(|(i, &l)| (i as u32, ((l as f64 - max) / temperature).exp())).collect();
    let total: f64 = probs.iter().map(|p| p.1).sum();
    // Most likely first; equal probabilities in id order so the choice never depends on sort details.
    probs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut kept = 0.0;
    let mut nucleus = 0;
    for &(_, p) in &probs {
        kept += p;
        nucleus += 1;
        if kept >= top_p * total {
            break;
        }
    }
    let mut target = u * kept;
    for &(id, p) in &probs[..nucleus] {
        if target < p {
            return id;
        }
        target -= p;
    }
    probs[nucleus - 1].0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_and_degenerate_sampling_pick_the_largest_logit() {
        let logits = [0.5f32, 3.0, -1.0, 2.9];
        let cases = [
            Sampling::Greedy,
            Sampling::Random { temperature: 0.0, top_p: 0.9, seed: 1 },
            Sampling::Random { temperature: 1.0, top_p: 1e-9, seed: 1 },
        ];
        for sampling in cases {
            assert_eq!(Sampler::new(sampling).next_token(&logits), 1, "{sampling:?}");
        }
    }

    #[test]
    fn seeded_sampling_repeats_and_follows_the_distribution() {
        let logits = [0.0f32, (2.0f32).ln(), (7.0f32).ln()]; // probabilities 0.1, 0.2, 0.7
        let draw = |seed| {
            let mut s = Sampler::new(Sampling::Random { temperature: 1.0, top_p: 1.0, seed });
            (0..20_000).map(|_| s.next_token(&logits)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        let tokens = draw(7);
        for (id, want) in [(0u32, 0.1), (1, 0.2), (2, 0.7)] {
            let got = tokens.iter().filter(|&&t| t == id).count() as f64 / tokens.len() as f64;
            assert!((got - want).abs() < 0.015, "token {id}: frequency {got}, expected {want}");
        }
    }

    #[test]
    fn top_p_keeps_only_the_nucleus() {
        // probabilities 0.1, 0.2, 0.7: top_p 0.75 keeps tokens 2 and 1, never 0
        let logits = [0.0f32, (2.0f32).ln(), (7.0f32).ln()];
        let mut s = Sampler::new(Sampling::Random { temperature: 1.0, top_p: 0.75, seed: 3 });
        let tokens: Vec<u32> = (0..5_000).map(|_| s.next_token(&logits)).collect();
        assert!(!tokens.contains(&0));
        assert!(tokens.contains(&1) && tokens.contains(&2));
    }
}
