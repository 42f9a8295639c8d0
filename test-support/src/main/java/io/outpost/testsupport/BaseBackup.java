package io.outpost.testsupport;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The file copy of PostgreSQL's low-level base backup (between {@code pg_backup_start} and {@code pg_backup_stop}),
 * done as the manual's "Making a Base Backup Using the Low-Level API" says: everything but the running server's own
 * files and the folders whose contents are rebuilt at start ({@code pg_wal}, {@code pg_replslot}, temporary
 * statistics, …), whose folders are kept empty. Files that vanish during the copy are skipped (the WAL replayed
 * from the backup's start repairs whatever changed meanwhile).
 */
final class BaseBackup {

    /** Not copied: the running server's own, and what the standby gets otherwise (postmaster.opts, auto.conf). */
    private static final Set<String> SKIPPED_FILES = Set.of("postmaster.pid", "postmaster.opts", "backup_label",
            "tablespace_map", "standby.signal", "recovery.signal", "postgresql.auto.conf", "restart.log", "pg_ctl.log");
    /** Copied as empty folders. */
    private static final Set<String> EMPTIED = Set.of("pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem",
            "pg_notify", "pg_serial", "pg_snapshots", "pg_subtrans");

    private BaseBackup() {
    }

    /** Copies the data directory {@code from} into {@code to} (created, mode 0700). */
    static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(dir).toString());
                Files.createDirectories(target);
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
                boolean topLevel = from.equals(dir.getParent());
                if (topLevel && EMPTIED.contains(dir.getFileName().toString())) {
                    if (dir.getFileName().toString().equals("pg_wal")) {
                        Files.createDirectories(target.resolve("archive_status"));
                        Files.createDirectories(target.resolve("summaries"));
                    }
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (from.equals(file.getParent()) && SKIPPED_FILES.contains(file.getFileName().toString())) {
                    return FileVisitResult.CONTINUE;
                }
                copyFile(file, to.resolve(from.relativize(file).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // removed while copying (a temporary file)
                }
                throw e;
            }
        });
    }

    /** Copies the WAL segments and history files of {@code from}'s {@code pg_wal} (after {@code pg_backup_stop}). */
    static void copyWal(Path from, Path to) throws IOException {
        try (var files = Files.list(from.resolve("pg_wal"))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                copyFile(file, to.resolve("pg_wal").resolve(file.getFileName().toString()));
            }
        }
    }

    private static void copyFile(Path file, Path target) throws IOException {
        try {
            Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
        } catch (NoSuchFileException removedMeanwhile) {
            // a temporary file of the running server
        }
    }
}
