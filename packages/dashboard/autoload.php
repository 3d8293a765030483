<?php
// Without composer: `require 'path/to/packages/dashboard/autoload.php';`
// (composer's own autoloader does the same from composer.json).
spl_autoload_register(function (string $class): void {
    if (str_starts_with($class, 'RedisKit\\Dashboard\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen('RedisKit\\Dashboard\\'))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
