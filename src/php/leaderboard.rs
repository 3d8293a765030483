#![allow(non_snake_case)] // PHP parameter names are camelCase (named arguments)
//! `RedisKit\RedisLeaderboard`: argument checks and PHP arrays around
//! `crate::leaderboard`.
use super::{
    array_entries, binary, connection_arg, keys, options_arg, php_list, settings, throw, type_name,
    value_error, Bytes,
};
use crate::conn::shown;
use crate::leaderboard::{Entry, Leaderboard};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

/// Real-time rankings on a Redis sorted set. Every read is one round trip
/// (none for a range served by the `local` tier).
///
/// Options: `order` ('desc' high first | 'asc' low first), `ranking`
/// ('ordinal' 1,2,3,4 | 'competition' 1,2,2,4 | 'dense' 1,2,2,3), `ties`
/// ('lexical' Redis's order | 'earliest' first to reach a score ranks higher),
/// `prefix` (string, default ini rediskit.prefix), `ttl` (seconds: the board
/// expires that long after its last write), `periods` (list of 'daily',
/// 'weekly', 'monthly': boards kept per calendar period), `retention` (past
/// periods kept, default 2), `utc_offset` (the periods' calendar: seconds east
/// of UTC or '+08:00', within ±14:00; default 0, UTC), `local` (true, or
/// ['max_bytes' => int, default 4 MiB, 'recheck_after' => seconds, default
/// 1]: top(), page() and between() of a board with the default ranking and
/// ties keep what they read in this worker's memory and serve it from
/// there until Redis reports a change of the board (client tracking, as
/// RedisCache's `local`); a write of this worker drops them at once).
#[php_class]
#[php(name = "RedisKit\\RedisLeaderboard")]
#[php(flags = ClassFlags::Final)]
pub struct RedisLeaderboard {
    inner: Leaderboard,
}

fn entry_array(e: Entry) -> PhpResult<ZBox<ZendHashTable>> {
    let mut h = ZendHashTable::with_capacity(3);
    keys::set(&mut h, "member", binary(e.member))?;
    keys::set(&mut h, "score", e.score)?;
    keys::set(&mut h, "rank", e.rank)?;
    Ok(h)
}

fn entry_list(list: Vec<Entry>) -> PhpResult<ZBox<ZendHashTable>> {
    php_list(list, entry_array)
}

#[php_impl]
impl RedisLeaderboard {
    /// @param string $name Board name; the Redis key is prefix . name.
    /// @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
    /// @param array $options See the class description.
    /// @throws \ValueError on a bad DSN, an unknown option or a bad option value.
    pub fn __construct(
        name: Bytes,
        connection: Option<&Zval>,
        options: Option<&ZendHashTable>,
    ) -> PhpResult<Self> {
        let conn = connection_arg(connection)?;
        let opts = options_arg(options)?;
        let inner = Leaderboard::new(&name.0, &conn, opts, &settings()).map_err(throw)?;
        Ok(RedisLeaderboard { inner })
    }

    /// Sets the member's score, replacing any previous one.
    /// @throws \ValueError if $score is NAN.
    /// @throws \RedisKit\Exception on a Redis error (e.g. the key holds another type).
    pub fn set_score(&self, member: Bytes, score: f64) -> PhpResult<()> {
        self.inner.set_score(&member.0, score).map_err(throw)
    }

    /// Stores the score only if it beats the member's current one (higher for
    /// 'desc', lower for 'asc'), or if the member is new.
    /// @return bool true if the score was stored.
    pub fn set_score_if_better(&self, member: Bytes, score: f64) -> PhpResult<bool> {
        self.inner
            .set_score_if_better(&member.0, score)
            .map_err(throw)
    }

    /// Adds $delta to the member's score (a new member starts at 0).
    /// @return float The new score.
    pub fn increment_score(&self, member: Bytes, delta: f64) -> PhpResult<f64> {
        self.inner.increment_score(&member.0, delta).map_err(throw)
    }

    /// Sets many scores at once ([member => score]), all or nothing: up to 1000
    /// members in one command or script, a bigger batch as 1000-member chunks in
    /// one MULTI/EXEC (it holds Redis for its whole length).
    /// Nothing is written if any score is not a number.
    /// @param array<string|int, int|float> $scores
    /// @return int How many of the members were new to the board.
    pub fn set_scores(&self, scores: &ZendHashTable) -> PhpResult<i64> {
        let mut owned: Vec<(Vec<u8>, f64)> = Vec::with_capacity(scores.len());
        for (k, v) in array_entries(scores) {
            let member = k.into_bytes();
            let score = v
                .double()
                .or_else(|| v.long().map(|l| l as f64))
                .ok_or_else(|| {
                    value_error(format!(
                        "setScores: the score of '{}' must be an int or a float, {} given",
                        shown(&member),
                        type_name(v)
                    ))
                })?;
            owned.push((member, score));
        }
        let refs: Vec<(&[u8], f64)> = owned.iter().map(|(m, s)| (m.as_slice(), *s)).collect();
        self.inner.set_scores(&refs).map_err(throw)
    }

    /// Removes members from the board.
    /// @return int How many of them were on the board.
    pub fn remove(&self, members: &[Bytes]) -> PhpResult<i64> {
        let refs: Vec<&[u8]> = members.iter().map(|m| m.0.as_slice()).collect();
        self.inner.remove(&refs).map_err(throw)
    }

    /// @return float|null The member's score, null when absent.
    pub fn score(&self, member: Bytes) -> PhpResult<Option<f64>> {
        self.inner.score(&member.0).map_err(throw)
    }

    /// @return int|null 1-based rank under the board's ranking mode, null when absent.
    pub fn rank(&self, member: Bytes) -> PhpResult<Option<i64>> {
        self.inner.rank(&member.0).map_err(throw)
    }

    /// @return array{member: string, score: float, rank: int}|null
    pub fn entry(&self, member: Bytes) -> PhpResult<Option<ZBox<ZendHashTable>>> {
        match self.inner.entry(&member.0).map_err(throw)? {
            Some(e) => Ok(Some(entry_array(e)?)),
            None => Ok(None),
        }
    }

    /// The best $limit entries, best first.
    /// @return list<array{member: string, score: float, rank: int}>
    /// @throws \ValueError if $limit < 1.
    #[php(defaults(limit = 10))]
    pub fn top(&self, limit: i64) -> PhpResult<ZBox<ZendHashTable>> {
        let got = self.inner.top(limit);
        super::local_notice()?;
        entry_list(got.map_err(throw)?)
    }

    /// Page $page (1-based) of $perPage entries: page 1 holds ranks 1..perPage.
    /// @return list<array{member: string, score: float, rank: int}>
    /// @throws \ValueError if $page or $perPage < 1.
    #[php(defaults(perPage = 25))]
    pub fn page(&self, page: i64, perPage: i64) -> PhpResult<ZBox<ZendHashTable>> {
        let got = self.inner.page(page, perPage);
        super::local_notice()?;
        entry_list(got.map_err(throw)?)
    }

    /// Up to 2*$radius+1 entries centred on the member, the window shifted at
    /// the top and bottom so it stays full; [] when the member is absent.
    /// @return list<array{member: string, score: float, rank: int}>
    /// @throws \ValueError if $radius < 0.
    #[php(defaults(radius = 2))]
    pub fn around(&self, member: Bytes, radius: i64) -> PhpResult<ZBox<ZendHashTable>> {
        entry_list(self.inner.around(&member.0, radius).map_err(throw)?)
    }

    /// Entries at positions $fromRank..$toRank (inclusive, 1-based).
    /// @return list<array{member: string, score: float, rank: int}>
    /// @throws \ValueError if $fromRank < 1 or $fromRank > $toRank.
    pub fn between(&self, fromRank: i64, toRank: i64) -> PhpResult<ZBox<ZendHashTable>> {
        let got = self.inner.between(fromRank, toRank);
        super::local_notice()?;
        entry_list(got.map_err(throw)?)
    }

    /// @return int Number of members on the board.
    pub fn count(&self) -> PhpResult<i64> {
        self.inner.count().map_err(throw)
    }

    /// @return float|null Share of the board (0..100) the member is ahead of or tied with; null when absent.
    pub fn percentile(&self, member: Bytes) -> PhpResult<Option<f64>> {
        self.inner.percentile(&member.0).map_err(throw)
    }

    /// The board of one period ('daily', 'weekly', 'monthly'): the current one
    /// by the Redis server's clock (in the utc_offset calendar), or the one named by $id
    /// ('2026-11-29', '2026-W48', '2026-11').
    /// @throws \ValueError for a period this board does not keep or a malformed id.
    pub fn period(&self, period: Bytes, id: Option<Bytes>) -> PhpResult<RedisLeaderboard> {
        let period = String::from_utf8_lossy(&period.0);
        let id = id.map(|id| String::from_utf8_lossy(&id.0).into_owned());
        let inner = self.inner.period(&period, id.as_deref()).map_err(throw)?;
        Ok(RedisLeaderboard { inner })
    }

    /// Deletes the board (and its side keys; period boards are kept).
    pub fn clear(&self) -> PhpResult<()> {
        self.inner.clear().map_err(throw)
    }
}
