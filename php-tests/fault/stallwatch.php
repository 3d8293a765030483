<?php
// Machine stalls, for run.php: sleeps 10 ms at a time and logs every sleep
// that took over 50 ms as "<start ns>\t<end ns>" (hrtime, the workers' clock)
// to the file argv[1], until the file argv[2] exists. When the whole machine
// stalls (a 2-core box shared with other work can freeze every process for
// seconds), no call can keep a timing bound: the checks take the time this
// process was frozen off a call's duration before comparing it with its bound.
declare(strict_types=1);
[, $out, $stop] = $argv;
$h = fopen($out, 'w');
for ($i = 0; ; $i++) {
    $t = hrtime(true);
    usleep(10_000);
    $e = hrtime(true);
    if ($e - $t > 50_000_000) {
        fwrite($h, ($t + 10_000_000) . "\t$e\n");
        fflush($h);
    }
    if ($i % 10 === 0 && file_exists($stop)) break;
}
