//! `RedisKit\metrics()` and `RedisKit\Metrics`: the host's shared metrics
//! as a PHP array and as the Prometheus text format.
use crate::metrics::{self, HistogramValue, KINDS};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

fn histogram(v: &HistogramValue) -> PhpResult<ZBox<ZendHashTable>> {
    let mut h = ZendHashTable::with_capacity(3);
    h.insert("count", v.count as i64)?;
    h.insert("sum", v.sum)?;
    let mut b = ZendHashTable::with_capacity(v.buckets.len() as u32 + 1);
    for (le, n) in &v.buckets {
        b.insert(shown_bound(*le).as_str(), *n as i64)?;
    }
    b.insert("+Inf", v.count as i64)?;
    h.insert("buckets", b)?;
    Ok(h)
}

/// A bucket bound as a string key ("0.005", "1.0"): never an int key.
fn shown_bound(le: f64) -> String {
    let s = format!("{le}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The array of `RedisKit\metrics()`.
pub fn all() -> PhpResult<ZBox<ZendHashTable>> {
    let snap = metrics::snapshot().unwrap_or_default();
    let mut out = ZendHashTable::with_capacity(KINDS.len() as u32 + 1);
    let mut seg = ZendHashTable::with_capacity(6);
    seg.insert("enabled", metrics::enabled())?;
    seg.insert("bytes", snap.bytes as i64)?;
    seg.insert("series", snap.series.len() as i64)?;
    seg.insert("capacity", snap.capacity as i64)?;
    seg.insert("max_names", snap.max_names as i64)?;
    seg.insert("per_minute_capacity", snap.rings as i64)?;
    seg.insert("per_minute_series", snap.rings_used as i64)?;
    let mut other = ZendHashTable::with_capacity(2);
    other.insert("full", snap.full as i64)?;
    other.insert("max_names", snap.capped as i64)?;
    seg.insert("other", other)?;
    out.insert("segment", seg)?;
    for d in &KINDS {
        let mut kind = ZendHashTable::new();
        for s in snap.series.iter().filter(|s| s.kind == d.kind) {
            let mut row = ZendHashTable::new();
            let mut errors: Option<ZBox<ZendHashTable>> = None;
            for (i, c) in d.counters.iter().enumerate() {
                let v = s.counters[i] as i64;
                match c.class {
                    Some(class) => {
                        errors
                            .get_or_insert_with(ZendHashTable::new)
                            .insert(class, v)?;
                    }
                    None => row.insert(c.name, v)?,
                }
            }
            if let Some(e) = errors {
                row.insert("errors", e)?;
            }
            for (i, h) in d.histograms.iter().enumerate() {
                row.insert(h.name, histogram(&s.histograms[i])?)?;
            }
            if !d.minutes.is_empty() {
                let mut rings = ZendHashTable::with_capacity(d.minutes.len() as u32);
                for (r, name) in d.minutes.iter().enumerate() {
                    let mut ring = ZendHashTable::with_capacity(metrics::MINUTES as u32);
                    for &v in s.per_minute.get(r).map_or(&[][..], |v| v.as_slice()) {
                        ring.push(v as i64)?;
                    }
                    rings.insert(*name, ring)?;
                }
                row.insert("per_minute", rings)?;
            }
            let mut z = Zval::new();
            z.set_hashtable(row);
            super::cache::insert_key(&mut kind, &s.name, z);
        }
        let key = d.prefix.trim_start_matches("rediskit_");
        out.insert(key, kind)?;
    }
    let mut hot = ZendHashTable::with_capacity(3);
    for (kind, keys) in metrics::hot_keys() {
        let mut list = ZendHashTable::with_capacity(keys.len() as u32);
        for k in keys {
            let mut row = ZendHashTable::with_capacity(3);
            let mut key = Zval::new();
            key.set_binary(k.key);
            row.insert("key", key)?;
            row.insert("count", k.count as i64)?;
            row.insert("error", k.error as i64)?;
            list.push(row)?;
        }
        let name = metrics::hot::HOT
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or("?", |(_, n)| n);
        hot.insert(name, list)?;
    }
    out.insert("hot", hot)?;
    Ok(out)
}

/// The host's metrics (shared by every worker process of this PHP-FPM pool,
/// Apache server, or CLI script and the children it forks) in the Prometheus
/// text exposition format.
#[php_class]
#[php(name = "RedisKit\\Metrics")]
#[php(flags = ClassFlags::Final)]
pub struct Metrics;

#[php_impl]
impl Metrics {
    /// Every series of this host in the Prometheus text format (version
    /// 0.0.4; OpenMetrics parsers read it too): serve it with
    /// Metrics::contentType(). Empty when ini rediskit.metrics_size is 0.
    pub fn open_metrics() -> String {
        metrics::exposition()
    }

    /// The Content-Type header value for openMetrics()'s text.
    pub fn content_type() -> &'static str {
        "text/plain; version=0.0.4; charset=utf-8"
    }
}
