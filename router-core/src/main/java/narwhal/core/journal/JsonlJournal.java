package narwhal.core.journal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JSON Lines journal file: a {@code meta} row (schema {@code narwhal.journal}, version 1), then
 * one row per {@link #record} call.
 *
 * <p>Rows are handed to one writer thread through a bounded queue so event loops never wait on the
 * disk; if the disk falls so far behind that the queue fills, rows are dropped and counted (and the
 * count is logged) rather than stalling request handling.
 */
public final class JsonlJournal implements Journal {

  private static final Logger log = LoggerFactory.getLogger(JsonlJournal.class);
  private static final Map<String, Object> STOP = Map.of();

  private final ObjectMapper mapper = new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);
  private final BlockingQueue<Map<String, Object>> queue = new ArrayBlockingQueue<>(65_536);
  private final AtomicLong dropped = new AtomicLong();
  private final BufferedWriter out;
  private final Thread writer;

  public JsonlJournal(Path file, Map<String, Object> metaFields) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      out = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open journal " + file, e);
    }
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("kind", "meta");
    meta.put("schema", "narwhal.journal");
    meta.put("schema_version", 1);
    meta.putAll(metaFields);
    queue.add(meta);
    writer = new Thread(this::drain, "narwhal-journal");
    writer.setDaemon(true);
    writer.start();
  }

  @Override
  public void record(Map<String, Object> row) {
    if (!queue.offer(row)) {
      long n = dropped.incrementAndGet();
      if (Long.bitCount(n) == 1) {
        log.warn("journal writer is behind; {} rows dropped so far", n);
      }
    }
  }

  /** Rows dropped because the writer fell behind. */
  public long dropped() {
    return dropped.get();
  }

  private void drain() {
    try {
      while (true) {
        Map<String, Object> row = queue.take();
        if (row == STOP) {
          break;
        }
        out.write(mapper.writeValueAsString(row));
        out.newLine();
        if (queue.isEmpty()) {
          out.flush();
        }
      }
      out.flush();
    } catch (IOException e) {
      log.error("journal write failed; no more rows will be written", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        out.close();
      } catch (IOException e) {
        log.warn("closing the journal failed", e);
      }
    }
  }

  /** Writes every queued row, then closes the file. */
  @Override
  public void close() {
    try {
      queue.put(STOP);
      writer.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
