<?php

declare(strict_types=1);

namespace RedisKit\Dashboard;

/** Inline SVG charts: no script, no CDN, no style attribute (the CSP allows none). */
final class Chart
{
    /**
     * A histogram of RedisKit\metrics() (cumulative buckets by upper bound in
     * seconds, '+Inf' last) as one bar per bucket.
     *
     * @param array{count: int, sum: float, buckets: array<string, int>} $h
     */
    public static function histogram(string $title, array $h): string
    {
        $w = 420;
        $ht = 170;
        $bars = [];
        $prev = 0;
        foreach ($h['buckets'] as $le => $cum) {
            $bars[] = [(string)$le, max(0, (int)$cum - $prev)];
            $prev = (int)$cum;
        }
        $n = max(1, count($bars));
        $max = max(1, ...array_column($bars, 1));
        $bw = ($w - 40) / $n;
        $title = Dashboard::e($title);
        $svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' . $w . '" height="' . $ht . '" viewBox="0 0 ' . $w . ' ' . $ht
            . '" role="img" aria-label="' . $title . '"><title>' . $title . '</title>'
            . '<text x="8" y="16" font-size="12" font-weight="600" fill="#1d2330">' . $title . ' (' . (int)$h['count']
            . ($h['count'] > 0 ? sprintf(', mean %s', self::secs($h['sum'] / $h['count'])) : '') . ')</text>';
        foreach ($bars as $i => [$le, $c]) {
            $bh = $c > 0 ? max(1.0, 110 * $c / $max) : 0.0;
            $x = 30 + $i * $bw;
            $svg .= sprintf('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#3b6db3"><title>%s: %d</title></rect>',
                $x + 1, 140 - $bh, max(1.0, $bw - 2), $bh, Dashboard::e('≤ ' . self::bound($le)), $c);
            if ($c > 0) {
                $svg .= sprintf('<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle" fill="#1d2330">%d</text>', $x + $bw / 2, 136 - $bh, $c);
            }
            $svg .= sprintf('<text x="%.1f" y="154" font-size="9" text-anchor="middle" fill="#667085">%s</text>', $x + $bw / 2, Dashboard::e(self::bound($le)));
        }
        return $svg . '<line x1="30" y1="140" x2="' . ($w - 10) . '" y2="140" stroke="#8a94a6"/></svg>';
    }

    /**
     * Two per-minute series of RedisKit\metrics() (oldest minute first, the
     * current one last) as pairs of bars: $series is [label => [colour, counts]].
     *
     * @param array<string, array{0: string, 1: list<int>}> $series
     */
    public static function perMinute(string $title, array $series): string
    {
        $w = 860;
        $ht = 190;
        $n = max(1, ...array_values(array_map(fn($s) => count($s[1]), $series)));
        $max = max(1, ...array_merge(...array_map(fn($s) => $s[1], array_values($series))));
        $slot = ($w - 60) / $n;
        $bw = max(1.0, ($slot - 1) / count($series));
        $title = Dashboard::e($title);
        $totals = [];
        foreach ($series as $label => [, $counts]) {
            $totals[] = Dashboard::e($label) . ' ' . array_sum($counts);
        }
        $svg = '<svg class="wide" xmlns="http://www.w3.org/2000/svg" width="' . $w . '" height="' . $ht . '" viewBox="0 0 ' . $w . ' ' . $ht
            . '" role="img" aria-label="' . $title . '"><title>' . $title . '</title>'
            . '<text x="8" y="16" font-size="12" font-weight="600" fill="#1d2330">' . $title . ' (' . implode(', ', $totals) . ')</text>'
            . sprintf('<text x="44" y="32" font-size="9" text-anchor="end" fill="#667085">%d/min</text>', $max);
        $k = 0;
        foreach ($series as $label => [$color, $counts]) {
            $svg .= sprintf('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="10" fill="#1d2330">%s</text>',
                $w - 190 + $k * 90, 7, Dashboard::e($color), $w - 176 + $k * 90, 16, Dashboard::e($label));
            foreach ($counts as $i => $c) {
                if ($c <= 0) continue;
                $bh = max(1.0, 130 * $c / $max);
                $ago = count($counts) - 1 - $i;
                $svg .= sprintf('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %d</title></rect>',
                    50 + $i * $slot + $k * $bw, 160 - $bh, $bw, $bh, Dashboard::e($color),
                    $ago === 0 ? 'this minute' : $ago . ' min ago', Dashboard::e($label), $c);
            }
            $k++;
        }
        foreach ([0 => '60 min ago', 30 => '30 min ago', 59 => 'now'] as $i => $t) {
            $svg .= sprintf('<text x="%.1f" y="174" font-size="9" text-anchor="middle" fill="#667085">%s</text>', 50 + ($i + 0.5) * $slot, $t);
        }
        return $svg . '<line x1="48" y1="160" x2="' . ($w - 10) . '" y2="160" stroke="#8a94a6"/></svg>';
    }

    /** Used against a limit (0: none) as a bar. */
    public static function gauge(string $title, int $used, int $max): string
    {
        $w = 420;
        $share = $max > 0 ? min(1.0, $used / $max) : 0.0;
        $color = $share >= 0.9 ? '#b42318' : ($share >= 0.75 ? '#a15c00' : '#17803d');
        $label = Dashboard::e($title) . ': ' . ($max > 0 ? sprintf('%.0f%% of maxmemory', 100 * $share) : 'no maxmemory set');
        return '<svg class="gauge" xmlns="http://www.w3.org/2000/svg" width="' . $w . '" height="44" viewBox="0 0 ' . $w . ' 44" role="img" aria-label="' . $label . '">'
            . '<title>' . $label . '</title><text x="8" y="15" font-size="12" fill="#1d2330">' . $label . '</text>'
            . '<rect x="8" y="22" width="' . ($w - 16) . '" height="14" fill="#e9edf3"/>'
            . sprintf('<rect x="8" y="22" width="%.1f" height="14" fill="%s"/>', ($w - 16) * $share, $color) . '</svg>';
    }

    private static function bound(string $le): string
    {
        return $le === '+Inf' ? '∞' : self::secs((float)$le);
    }

    private static function secs(float $s): string
    {
        return $s < 1 ? rtrim(rtrim(sprintf('%.1f', $s * 1000), '0'), '.') . 'ms' : rtrim(rtrim(sprintf('%.2f', $s), '0'), '.') . 's';
    }
}
