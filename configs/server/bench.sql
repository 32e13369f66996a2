-- bench.sql: the suite's databases and account, run by mariadbd's
-- --init-file when server-start starts it.  bench/bench from anywhere and from
-- localhost (an anonymous ''@localhost would otherwise shadow 'bench'@'%'
-- for local connections).
DELETE FROM mysql.global_priv WHERE User = '';
CREATE DATABASE IF NOT EXISTS bench;
CREATE DATABASE IF NOT EXISTS bench_ops;
CREATE USER IF NOT EXISTS 'bench'@'%' IDENTIFIED BY 'bench';
CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'bench';
GRANT ALL PRIVILEGES ON `bench%`.* TO 'bench'@'%';
GRANT ALL PRIVILEGES ON `bench%`.* TO 'bench'@'localhost';
FLUSH PRIVILEGES;
