// Package testenv gives tests the real services they need: MariaDB/MySQL,
// Redis and a Redis Cluster. Each helper isolates the test (its own database
// or key prefix) and cleans up. When a service is missing the test is skipped
// with a message saying how to run it, except under CI=true, where a missing
// service fails the test: CI never skips silently.
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
)

const howToRun = "run `make test` (scripts/test.sh starts MariaDB, Redis and a Redis Cluster)"

// unavailable skips tb, or fails it under CI=true.
func unavailable(tb testing.TB, service string, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s is required under CI=true but unavailable: %v", service, err)
	}
	tb.Skipf("%s unavailable (%v); %s", service, err, howToRun)
}

// RandomSuffix returns n random hex characters.
func RandomSuffix(n int) string {
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)[:n]
}

// Getenv returns the environment variable key, or def when it is empty.
func Getenv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// RedisAddr is the single Redis server the tests use (TEST_REDIS_ADDR).
func RedisAddr() string { return Getenv("TEST_REDIS_ADDR", "127.0.0.1:6379") }

// RedisClusterAddrs are the seed nodes of the test Redis Cluster (TEST_REDIS_CLUSTER_ADDRS).
func RedisClusterAddrs() []string {
	return strings.Split(Getenv("TEST_REDIS_CLUSTER_ADDRS", "127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002"), ",")
}

// Redis returns a client of the test Redis and a key prefix unique to this
// test; keys under the prefix are deleted when the test ends.
func Redis(tb testing.TB) (*redis.Client, string) {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: RedisAddr()})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		unavailable(tb, "Redis at "+RedisAddr(), err)
	}
	prefix := "test:" + RandomSuffix(10) + ":"
	tb.Cleanup(func() {
		deleteByPrefix(c, prefix)
		_ = c.Close()
	})
	return c, prefix
}

// RedisCluster returns a client of the test Redis Cluster and a key prefix
// unique to this test; keys under the prefix are deleted when the test ends.
func RedisCluster(tb testing.TB) (*redis.ClusterClient, string) {
	tb.Helper()
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: RedisClusterAddrs()})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := c.Ping(ctx).Err()
	if err == nil {
		var info string
		info, err = c.ClusterInfo(ctx).Result()
		if err == nil && !strings.Contains(info, "cluster_state:ok") {
			err = fmt.Errorf("cluster_state is not ok")
		}
	}
	if err != nil {
		_ = c.Close()
		unavailable(tb, "Redis Cluster at "+strings.Join(RedisClusterAddrs(), ","), err)
	}
	prefix := "test:" + RandomSuffix(10) + ":"
	tb.Cleanup(func() {
		_ = c.ForEachMaster(context.Background(), func(ctx context.Context, node *redis.Client) error {
			deleteByPrefix(node, prefix)
			return nil
		})
		_ = c.Close()
	})
	return c, prefix
}

func deleteByPrefix(c *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
	}
}

// MySQLServerDSN is the DSN of the test MariaDB/MySQL server without a
// database (TEST_MYSQL_DSN).
func MySQLServerDSN() string {
	return Getenv("TEST_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/")
}

// MySQL creates a scratch database on the test server and returns a DSN for
// it; the database is dropped when the test ends.
func MySQL(tb testing.TB) string {
	tb.Helper()
	cfg, err := mysql.ParseDSN(MySQLServerDSN())
	if err != nil {
		tb.Fatalf("TEST_MYSQL_DSN: %v", err)
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		tb.Fatalf("open mysql: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		_ = admin.Close()
		unavailable(tb, "MariaDB/MySQL at "+cfg.Addr, err)
	}
	name := "aimeeting_test_" + RandomSuffix(12)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		_ = admin.Close()
		tb.Fatalf("create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			tb.Logf("drop database %s: %v", name, err)
		}
		_ = admin.Close()
	})
	cfg.DBName = name
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["charset"] = "utf8mb4"
	return cfg.FormatDSN()
}
