package io.redstring.neo4jlauncher;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Starts an embedded Neo4j 5 Community DBMS with only the Bolt connector
 * listening on 127.0.0.1, for use by test scripts.
 *
 * <pre>
 *   java -Xmx1g -jar neo4j-launcher.jar [--port N] [--data DIR] [--uri-file PATH]
 *        [--pagecache SIZE] [--watch-pid PID] [--start-timeout SECONDS]
 * </pre>
 *
 * Authentication is disabled. Once Bolt answers a protocol handshake the
 * launcher prints exactly one line {@code BOLT_URI=bolt://127.0.0.1:PORT}
 * to stdout (and writes the URI to {@code --uri-file}, atomically); every
 * other message goes to stderr. The DBMS is shut down by a shutdown hook,
 * so SIGTERM and SIGINT stop it cleanly.
 */
public final class Neo4jLauncher {

    private static final String HOST = "127.0.0.1";

    /** Exit codes, so a calling script can tell failures apart. */
    private static final int EXIT_USAGE = 2;
    private static final int EXIT_START_FAILED = 3;

    private Neo4jLauncher() {}

    /** Parsed command line. */
    private static final class Options {
        int port = 0;
        Path dataDir;
        Path uriFile;
        long pageCacheBytes = 128L * 1024 * 1024;
        long watchPid = -1;
        long startTimeoutSeconds = 170;
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("neo4j-launcher: " + e.getMessage());
            usage(System.err);
            System.exit(EXIT_USAGE);
            return;
        }
        try {
            run(options);
        } catch (Throwable t) {
            System.err.println("neo4j-launcher: failed to start Neo4j: " + t);
            t.printStackTrace(System.err);
            // halt: skip the shutdown hooks' waiting on a DBMS that never came up
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_START_FAILED);
        }
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar neo4j-launcher.jar [--port N] [--data DIR] [--uri-file PATH]");
        out.println("                                    [--pagecache SIZE] [--watch-pid PID]");
        out.println("                                    [--start-timeout SECONDS]");
        out.println("  --port N           Bolt port on 127.0.0.1; 0 or absent picks a free port");
        out.println("  --data DIR         Neo4j home (data/, logs/); created if absent;");
        out.println("                     absent = a temp dir that is deleted at shutdown");
        out.println("  --uri-file PATH    also write bolt://127.0.0.1:PORT to PATH");
        out.println("  --pagecache SIZE   page cache size, e.g. 128m (default), 1g");
        out.println("  --watch-pid PID    shut down when process PID exits");
        out.println("  --start-timeout S  give up if Bolt is not up after S seconds (default 170)");
    }

    private static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (name.equals("-h") || name.equals("--help")) {
                usage(System.out);
                System.exit(0);
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + name);
                }
                value = args[++i];
            }
            switch (name) {
                case "--port":
                    o.port = parseInt(name, value, 0, 65535);
                    break;
                case "--data":
                    o.dataDir = Path.of(value);
                    break;
                case "--uri-file":
                    o.uriFile = Path.of(value);
                    break;
                case "--pagecache":
                    o.pageCacheBytes = parseSize(name, value);
                    break;
                case "--watch-pid":
                    o.watchPid = parseInt(name, value, 1, Integer.MAX_VALUE);
                    break;
                case "--start-timeout":
                    o.startTimeoutSeconds = parseInt(name, value, 1, 86400);
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument: " + arg);
            }
        }
        return o;
    }

    private static int parseInt(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ": " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number: " + value);
        }
    }

    private static long parseSize(String name, String value) {
        String v = value.trim().toLowerCase();
        long unit = 1;
        if (v.endsWith("k")) {
            unit = 1024L;
        } else if (v.endsWith("m")) {
            unit = 1024L * 1024;
        } else if (v.endsWith("g")) {
            unit = 1024L * 1024 * 1024;
        }
        if (unit != 1) {
            v = v.substring(0, v.length() - 1);
        }
        try {
            long n = Long.parseLong(v);
            if (n <= 0) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return n * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a size (e.g. 128m): " + value);
        }
    }

    private static void run(Options o) throws Exception {
        long started = System.nanoTime();

        boolean tempHome = o.dataDir == null;
        Path home = tempHome ? Files.createTempDirectory("redstring-neo4j-") : o.dataDir;
        Files.createDirectories(home);
        home = home.toAbsolutePath();
        if (o.uriFile != null) {
            // never leave a stale URI from an earlier run for a caller to find
            Files.deleteIfExists(o.uriFile);
        }

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, o.pageCacheBytes)
                // test databases: no 250 MiB transaction log pre-allocation
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "1 files")
                .setConfig(GraphDatabaseSettings.default_listen_address, new SocketAddress(HOST))
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, o.port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                // Bolt otherwise idles ~10 s in shutdown (two 5 s grace periods);
                // the databases are already checkpointed and closed by then.
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(500))
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(2))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean shutdownDone = new AtomicBoolean(false);
        final Path homeForHook = home;
        Thread hook = new Thread(() -> {
            if (!shutdownDone.compareAndSet(false, true)) {
                return;
            }
            System.err.println("neo4j-launcher: shutting down");
            try {
                dbms.shutdown();
                System.err.println("neo4j-launcher: stopped");
            } catch (Throwable t) {
                System.err.println("neo4j-launcher: error during shutdown: " + t);
            } finally {
                if (tempHome) {
                    deleteRecursively(homeForHook);
                }
                stopped.countDown();
            }
        }, "neo4j-launcher-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        long deadline = started + TimeUnit.SECONDS.toNanos(o.startTimeoutSeconds);

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        if (!db.isAvailable(waitMillis)) {
            throw new IllegalStateException("default database not available within "
                    + o.startTimeoutSeconds + " s");
        }

        int port = boundBoltPort(db, o.port);
        waitForBoltHandshake(port, deadline);

        String uri = "bolt://" + HOST + ":" + port;
        if (o.uriFile != null) {
            writeAtomically(o.uriFile, uri + "\n");
        }
        System.out.println("BOLT_URI=" + uri);
        System.out.flush();
        System.err.printf("neo4j-launcher: Neo4j %s up in %.1f s, home %s%n",
                neo4jVersion(), (System.nanoTime() - started) / 1e9, home);

        if (o.watchPid > 0) {
            watchParent(o.watchPid);
        }
        // Keep the JVM alive until a signal runs the shutdown hook.
        stopped.await();
    }

    /** The port Bolt actually bound (matters when 0 was asked for). */
    private static int boundBoltPort(GraphDatabaseService db, int requested) {
        ConnectorPortRegister ports = ((GraphDatabaseAPI) db).getDependencyResolver()
                .resolveDependency(ConnectorPortRegister.class);
        HostnamePort address = ports.getLocalAddress(ConnectorType.BOLT);
        if (address == null || address.getPort() <= 0) {
            if (requested > 0) {
                return requested;
            }
            throw new IllegalStateException("Bolt connector did not register a port");
        }
        return address.getPort();
    }

    /**
     * Connects to Bolt and performs the version handshake until the server
     * agrees on a protocol version: proof that Bolt accepts connections.
     */
    private static void waitForBoltHandshake(int port, long deadline) throws InterruptedException {
        // magic preamble, then four proposals: 5.0-5.8 (range form), 4.4, none, none
        byte[] hello = {
            0x60, 0x60, (byte) 0xB0, 0x17,
            0x00, 0x08, 0x08, 0x05,
            0x00, 0x00, 0x04, 0x04,
            0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00,
        };
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 2000);
                socket.setSoTimeout(5000);
                OutputStream out = socket.getOutputStream();
                out.write(hello);
                out.flush();
                int agreed = new DataInputStream(socket.getInputStream()).readInt();
                if (agreed != 0) {
                    return;
                }
                last = new IOException("server agreed on no Bolt version");
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("Bolt on " + HOST + ":" + port
                + " did not answer the handshake in time", last);
    }

    private static void watchParent(long pid) {
        Thread watcher = new Thread(() -> {
            while (true) {
                boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                if (!alive) {
                    System.err.println("neo4j-launcher: watched process " + pid + " is gone");
                    System.exit(0); // runs the shutdown hook
                    return;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "neo4j-launcher-watch-pid");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static void writeAtomically(Path target, String content) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".bolt-uri-", ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        try {
            Files.move(tmp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String neo4jVersion() {
        Package p = DatabaseManagementService.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "5.x" : v;
    }

    private static void deleteRecursively(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("neo4j-launcher: could not delete " + root + ": " + e);
        }
    }
}
