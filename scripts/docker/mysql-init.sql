-- The orders database and the user come from MYSQL_DATABASE / MYSQL_USER; the stock database is ours.
CREATE DATABASE IF NOT EXISTS stock CHARACTER SET utf8mb4;
GRANT ALL PRIVILEGES ON stock.* TO 'flashstock'@'%';
GRANT ALL PRIVILEGES ON `test\_%`.* TO 'flashstock'@'%';
