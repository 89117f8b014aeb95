package narwhal.core.journal;

import com.codahale.metrics.Counter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JSON Lines journal file: a {@code meta} row (schema {@code narwhal.journal}, version 1), then
 * one row per {@link #record} call. The file is opened for append, so a restart on the same path
 * keeps the previous run's rows (each run starts with its own meta row).
 *
 * <p>{@link #record} serialises the row on the caller's thread (so the queue can be bounded in
 * bytes, and a row that cannot be serialised is dropped there, never reaching the writer) and hands
 * the line to one writer thread: event loops never wait on the disk. Every line is valid UTF-8
 * whatever the row holds: a string that is not valid UTF-16 (a lone or reversed surrogate, which a
 * client can spell in JSON as {@code "\ud800"}) keeps its surrogates as {@code \\uXXXX} escapes,
 * so request content can never make the encoder fail.
 *
 * <p>The queue is bounded ({@link JournalSettings#maxQueuedRows} rows and {@link
 * JournalSettings#maxQueuedBytes} bytes); a row that does not fit is dropped and counted ({@link
 * #droppedRows}), and the writer logs the drops at most once per {@link JournalSettings#reportInterval}.
 * When a write fails (disk full, I/O error) the writer keeps the unwritten bytes, retries every
 * {@link JournalSettings#retryInterval} on the same file, and {@link #notWritingReason} says why until a
 * write succeeds; nothing is lost or written twice once the disk recovers, except rows that did
 * not fit in the queue meanwhile. {@link #reopen} (SIGHUP) makes the writer close the file and
 * open the configured path again, between two rows, for logrotate's move-then-signal pattern.
 *
 * <p>Why one class of about 500 lines: the writer is one state machine (write, fail and retry,
 * reopen, close or give up) over state its thread and {@link #record} share under one lock (the
 * queue, the batch with its row boundaries, the channel, the failure); apart, each half would have
 * to reach into the other's. What stands alone already does: the line encoding ({@link
 * JournalLines}, {@link PlainDecimals}), the bounds ({@link JournalSettings}), the drop report
 * ({@link DropReport}).
 */
public final class JsonlJournal implements Journal {

  /** Default bound on rows waiting for the writer. */
  public static final int DEFAULT_MAX_QUEUED_ROWS = 65_536;
  /** Default bound on bytes waiting for the writer (16 MiB), what keeps the heap in check. */
  public static final long DEFAULT_MAX_QUEUED_BYTES = 16L << 20;

  private static final Logger log = LoggerFactory.getLogger(JsonlJournal.class);
  /** The writer moves up to this much from the queue per write call. */
  private static final int BATCH_BYTES = 256 * 1024;
  private static final byte[] NEWLINE = {'\n'};

  // Every double and float as a plain decimal (PlainDecimals), never 1.23E-4; BigDecimals likewise.
  private final ObjectMapper mapper = new ObjectMapper()
      .disable(SerializationFeature.INDENT_OUTPUT)
      .enable(com.fasterxml.jackson.core.JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
      .registerModule(PlainDecimals.module());
  private final Path file;
  private final JournalSettings settings;
  private final byte[] metaLine;
  private final Map<JournalDropReason, Counter> dropped = new EnumMap<>(JournalDropReason.class);
  private final Counter writeErrors = new Counter();
  private final Counter reopens = new Counter();
  private final Thread writer;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final ArrayDeque<byte[]> queue = new ArrayDeque<>(); // guarded by lock
  private long queuedBytes; // guarded by lock
  private boolean stopping; // guarded by lock
  private boolean reopenRequested; // guarded by lock

  /** Why writes fail right now, or null while they succeed. */
  private volatile @Nullable String failure;
  private volatile @Nullable String lastUnencodable;

  // The writer thread's own state.
  private @Nullable WritableByteChannel channel;
  /** Bytes taken from the queue and not yet written, from position() to limit(). */
  private ByteBuffer batch = ByteBuffer.allocate(0);
  /** Offsets in {@link #batch} where rows end, so a reopen can resume at a row boundary. */
  private final ArrayDeque<Integer> rowEnds = new ArrayDeque<>();
  private final DropReport drops;
  private long failedAttempts;

  public JsonlJournal(Path file, Map<String, Object> metaFields) {
    this(file, metaFields, JournalSettings.defaults());
  }

  /** Opens (creating, never truncating) {@code file}; fails if it cannot be opened now. */
  public JsonlJournal(Path file, Map<String, Object> metaFields, JournalSettings settings) {
    this.file = file;
    this.settings = settings;
    for (JournalDropReason r : JournalDropReason.values()) {
      dropped.put(r, new Counter());
    }
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("kind", "meta");
    meta.put("schema", "narwhal.journal");
    meta.put("schema_version", 1);
    meta.putAll(metaFields);
    try {
      metaLine = JournalLines.encode(mapper, meta);
      // Each run starts with its meta row, also when it appends to an earlier run's file.
      batch = ByteBuffer.wrap(open(true));
      rowEnds.add(batch.limit());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open journal " + file, e);
    }
    drops = new DropReport(settings.reportInterval().toNanos(), settings.nanoClock().getAsLong());
    writer = new Thread(this::drain, "narwhal-journal");
    writer.setDaemon(true);
    writer.start();
  }

  @Override
  public void record(Map<String, Object> row) {
    byte[] line;
    try {
      line = JournalLines.encode(mapper, row);
    } catch (IOException | RuntimeException e) {
      // A row that cannot be serialised is a bug, not a reason to stop journaling.
      lastUnencodable = e.toString();
      dropped.get(JournalDropReason.UNENCODABLE).inc();
      return;
    }
    JournalDropReason refused;
    lock.lock();
    try {
      if (stopping) {
        refused = JournalDropReason.CLOSED;
      } else if (line.length > settings.maxQueuedBytes()) {
        refused = JournalDropReason.TOO_LARGE;
      } else if (queue.size() >= settings.maxQueuedRows() || queuedBytes + line.length > settings.maxQueuedBytes()) {
        refused = JournalDropReason.QUEUE_FULL;
      } else {
        queue.add(line);
        queuedBytes += line.length;
        wake.signal();
        return;
      }
    } finally {
      lock.unlock();
    }
    // Counted here; logged by the writer, once per report interval, never on the caller's thread.
    dropped.get(refused).inc();
  }

  /** Why rows are not being written now ({@code cannot write PATH: ...}), or null when they are. */
  @Override
  public @Nullable String notWritingReason() {
    return failure;
  }

  /** Closes the file and opens the configured path again (after logrotate moved it), between rows. */
  @Override
  public void reopen() {
    lock.lock();
    try {
      reopenRequested = true;
      wake.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Rows dropped for {@code reason} so far. */
  public Counter droppedRows(JournalDropReason reason) {
    return dropped.get(reason);
  }

  /** Rows dropped for any reason so far. */
  public long dropped() {
    return dropped.values().stream().mapToLong(Counter::getCount).sum();
  }

  /** Failed write (or open) attempts so far. */
  public Counter writeErrors() {
    return writeErrors;
  }

  /** Times the file was reopened on request. */
  public Counter reopens() {
    return reopens;
  }

  /** Rows waiting for the writer. */
  public int queuedRows() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes waiting for the writer (at most {@link JournalSettings#maxQueuedBytes}). */
  public long queuedBytes() {
    lock.lock();
    try {
      return queuedBytes;
    } finally {
      lock.unlock();
    }
  }

  public JournalSettings settings() {
    return settings;
  }

  /**
   * Opens the configured path and returns what must be written first: a newline when the file
   * ends in a torn row (a crash mid-write), so the next row starts on its own line; and the meta
   * row when this is the run's first file or a fresh one (after a rotation).
   */
  private byte[] open(boolean runStart) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    long size = Files.exists(file) ? Files.size(file) : 0;
    boolean torn = size > 0 && lastByte(file, size) != '\n';
    channel = settings.opener().open(file);
    byte[] head = torn ? NEWLINE : new byte[0];
    if (runStart || size == 0) {
      head = concat(head, metaLine);
    }
    return head;
  }

  private static int lastByte(Path file, long size) throws IOException {
    try (SeekableByteChannel in = Files.newByteChannel(file, StandardOpenOption.READ)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      in.position(size - 1);
      return in.read(one) == 1 ? one.get(0) : '\n';
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** The writer thread: nothing a row holds, and no exception, ends it before close. */
  private void drain() {
    while (true) {
      try {
        if (!step()) {
          break;
        }
      } catch (RuntimeException | Error e) {
        // A bug here must not silently end journaling: log it, keep the bytes, try again later.
        log.error("journal writer failed unexpectedly; retrying", e);
        failure = "journal writer error: " + e;
        pause();
      }
    }
    closeChannel();
  }

  /** One round: take rows, honour a reopen, write. False once closed and everything is written. */
  private boolean step() {
    boolean reopen;
    boolean stop;
    lock.lock();
    try {
      while (queue.isEmpty() && !batch.hasRemaining() && !stopping && !reopenRequested) {
        long wait = nanosToNextReport();
        try {
          wake.awaitNanos(wait);
        } catch (InterruptedException e) {
          // The writer's own thread: an interrupt means stop. The flag is not kept, because an
          // interrupted FileChannel closes itself and the remaining rows could not be flushed.
          stopping = true;
        }
        lock.unlock();
        try {
          reportIfDue();
        } finally {
          lock.lock();
        }
      }
      reopen = reopenRequested;
      reopenRequested = false;
      stop = stopping;
      if (!batch.hasRemaining()) {
        fillBatch();
      }
    } finally {
      lock.unlock();
    }
    reportIfDue();
    if (reopen) {
      reopenFile();
    }
    if (batch.hasRemaining()) {
      if (!writeBatch()) {
        if (stop) {
          giveUp();
          return false;
        }
        pause();
      }
      return true;
    }
    return !stop;
  }

  /** Moves queued rows (at least one, up to {@link #BATCH_BYTES}) into the batch. Holds the lock. */
  private void fillBatch() {
    long size = 0;
    int rows = 0;
    for (byte[] line : queue) {
      if (rows > 0 && size + line.length > BATCH_BYTES) {
        break;
      }
      size += line.length;
      rows++;
    }
    if (rows == 0) {
      return;
    }
    ByteBuffer next = ByteBuffer.allocate((int) size);
    rowEnds.clear();
    for (int i = 0; i < rows; i++) {
      byte[] line = queue.poll();
      next.put(line);
      rowEnds.add(next.position());
      queuedBytes -= line.length;
    }
    next.flip();
    batch = next;
  }

  /** Writes the rest of the batch; on failure keeps what is unwritten (and the channel) for a retry. */
  private boolean writeBatch() {
    try {
      if (channel == null) {
        prepend(open(false));
      }
      while (batch.hasRemaining()) {
        if (channel.write(batch) == 0) {
          throw new IOException("the journal accepted no bytes");
        }
      }
      writeSucceeded();
      return true;
    } catch (IOException e) {
      writeFailed(e);
      return false;
    }
  }

  /** Puts {@code head} (a torn-row newline, a meta row) before the rest of the batch. */
  private void prepend(byte[] head) {
    if (head.length == 0) {
      return;
    }
    int start = batch.position();
    ByteBuffer next = ByteBuffer.allocate(head.length + batch.remaining());
    next.put(head).put(batch).flip();
    ArrayDeque<Integer> ends = new ArrayDeque<>();
    ends.add(head.length);
    for (int end : rowEnds) {
      if (end > start) {
        ends.add(end - start + head.length);
      }
    }
    rowEnds.clear();
    rowEnds.addAll(ends);
    batch = next;
  }

  /**
   * Closes the file so the next write opens the configured path afresh. A row cut short by an
   * earlier failed write starts over in the new file, so every row there is whole.
   */
  private void reopenFile() {
    reopens.inc();
    closeAndRewind();
    log.info("journal: reopening {}", file);
  }

  /** Drops the channel and moves back to the start of the row a failed write may have cut. */
  private void closeAndRewind() {
    closeChannel();
    int resume = 0;
    for (int end : rowEnds) {
      if (end <= batch.position()) {
        resume = end;
      }
    }
    batch.position(resume);
  }

  private void writeSucceeded() {
    if (failure != null) {
      log.warn("journal: writing to {} again after {} failed attempts", file, failedAttempts);
      failure = null;
    }
    failedAttempts = 0;
  }

  private void writeFailed(IOException e) {
    writeErrors.inc();
    failedAttempts++;
    if (e instanceof ClosedChannelException) {
      // Nothing more can go through this channel: the next attempt opens the path again.
      closeAndRewind();
    }
    String was = failure;
    failure = "cannot write " + file + ": " + e;
    if (was == null) {
      log.error("journal: cannot write {}; up to {} rows / {} bytes wait and are retried every {} ms, "
              + "later ones are dropped (narwhal_journal_dropped_rows_total); /ready answers 503 meanwhile",
          file, settings.maxQueuedRows(), settings.maxQueuedBytes(), settings.retryInterval().toMillis(), e);
    }
  }

  /** Close was asked for while the disk still fails: what is left is dropped, and said so. */
  private void giveUp() {
    long left;
    lock.lock();
    try {
      left = queue.size() + (batch.hasRemaining() ? 1 : 0);
      queue.clear();
      queuedBytes = 0;
    } finally {
      lock.unlock();
    }
    dropped.get(JournalDropReason.CLOSED).inc(left);
    log.error("journal: closing with about {} rows unwritten: {}", left, failure);
  }

  /** Waits one retry interval, or less if close or a reopen is asked for. */
  private void pause() {
    long left = settings.retryInterval().toNanos();
    lock.lock();
    try {
      while (left > 0 && !stopping && !reopenRequested) {
        left = wake.awaitNanos(Math.min(left, nanosToNextReport()));
        lock.unlock();
        try {
          reportIfDue();
        } finally {
          lock.lock();
        }
      }
    } catch (InterruptedException e) {
      stopping = true; // as in step(): the flag is not kept, so the rows left can still be flushed
    } finally {
      lock.unlock();
    }
  }

  private long nanosToNextReport() {
    return drops.nanosToNext(settings.nanoClock().getAsLong());
  }

  /** Logs the rows dropped since the last report, at most once per report interval. */
  private void reportIfDue() {
    String line = drops.due(settings.nanoClock().getAsLong(), r -> dropped.get(r).getCount());
    if (line != null) {
      String why = failure != null ? failure : lastUnencodable != null ? "last unencodable row: " + lastUnencodable : "";
      log.warn("journal: rows dropped in the last {} s: {}; queue bound {} rows / {} bytes{}{}",
          settings.reportInterval().toSeconds(), line, settings.maxQueuedRows(), settings.maxQueuedBytes(),
          why.isEmpty() ? "" : "; ", why);
    }
  }

  private void closeChannel() {
    WritableByteChannel c = channel;
    channel = null;
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        log.warn("journal: closing {} failed", file, e);
      }
    }
  }

  /**
   * Writes every queued row, then closes the file. Waits up to 10 s; a writer still failing then
   * gives up, counting what it could not write.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      stopping = true;
      wake.signal();
    } finally {
      lock.unlock();
    }
    try {
      writer.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
