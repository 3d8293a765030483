<?php
// The failover campaign's summary (RKFO_JSON of php-tests/failover/run.php)
// as the Markdown table of docs/topologies.md:
//   php php-tests/failover/table.php target/failover.json
declare(strict_types=1);

$file = $argv[1] ?? '';
$sum = is_file($file) ? json_decode((string)file_get_contents($file), true) : null;
if (!is_array($sum)) {
    fwrite(STDERR, "usage: php table.php <summary.json written by make failover>\n");
    exit(2);
}
$topoNames = ['sentinel' => 'Sentinel', 'cluster' => 'Cluster'];
$faultNames = [
    'kill' => 'primary killed',
    'pause' => 'primary paused, back stale',
    'forced' => 'forced failover',
    'partition' => 'primary partitioned',
    'reshard' => 'slots migrated',
];
$modeNames = ['async' => 'default', 'wait' => 'all replicas', 'wait1' => '1 of 2'];
$v = fn(array $byPrim, string $prim, string $mode, string $k) => $byPrim[$prim][$mode][$k] ?? 0;

echo "| topology | fault | rounds | `wait_replicas` | lock: double grants | lock: fencing violations reaching the store | queue: acked pushes lost | queue: deliveries after a returned ack | limiter: admissions over the limit | failed calls | unconfirmed writes | longest unavailability (s) |\n";
echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
foreach ($sum as $topo => $byFault) {
    foreach ($byFault as $fault => $byPrim) {
        foreach (array_keys($byPrim['lock'] ?? []) as $mode) {
            $errors = 0;
            $unconfirmed = 0;
            $unavailable = 0.0;
            foreach ($byPrim as $prim => $byMode) {
                if (!isset($byMode[$mode])) continue;
                $errors += $byMode[$mode]['errors'] ?? 0;
                $unconfirmed += $byMode[$mode]['unconfirmed'] ?? 0;
                $unavailable = max($unavailable, $byMode[$mode]['unavailable_s'] ?? 0.0);
            }
            printf("| %s | %s | %d | %s | %d | %d | %d | %d | %d | %d | %d | %.1f |\n",
                $topoNames[$topo] ?? $topo, $faultNames[$fault] ?? $fault, $byPrim['lock'][$mode]['rounds'] ?? 0,
                $modeNames[$mode] ?? $mode,
                $v($byPrim, 'lock', $mode, 'double_grants'), $v($byPrim, 'lock', $mode, 'fencing_violations'),
                $v($byPrim, 'queue', $mode, 'lost_acked_pushes'), $v($byPrim, 'queue', $mode, 'delivered_after_ack'),
                $v($byPrim, 'limiter', $mode, 'over_admitted'), $errors, $unconfirmed, $unavailable);
        }
    }
}
