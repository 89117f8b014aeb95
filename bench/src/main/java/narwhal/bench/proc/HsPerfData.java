package narwhal.bench.proc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a HotSpot JVM's performance counters from its {@code hsperfdata} file (what {@code jstat}
 * reads), so another JVM's heap can be sampled often without attaching to it or starting a tool.
 *
 * <p>Format (HotSpot {@code perfMemory.hpp}, version 2): a 32-byte prologue — magic
 * {@code 0xcafec0c0}, byte order (0 big, 1 little), major, minor, accessible, used, overflow,
 * modification time, entry offset, entry count — then entries of {entry length, name offset,
 * vector length, type, flags, units, variability, data offset}, names NUL-terminated. Heap used is
 * the sum of {@code sun.gc.generation.N.space.M.used}; committed the sum of their capacities.
 */
public final class HsPerfData {

  private static final int MAGIC = 0xcafec0c0;

  private final Map<String, Long> longs;

  private HsPerfData(Map<String, Long> longs) {
    this.longs = longs;
  }

  /** The counters file of JVM {@code pid} under {@code tmp} ({@code /tmp/hsperfdata_<user>/<pid>}). */
  public static Optional<Path> find(Path tmp, long pid) {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, "hsperfdata_*")) {
      for (Path dir : dirs) {
        Path file = dir.resolve(Long.toString(pid));
        if (Files.isRegularFile(file)) {
          return Optional.of(file);
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  public static HsPerfData read(Path file) throws IOException {
    return parse(ByteBuffer.wrap(Files.readAllBytes(file)));
  }

  static HsPerfData parse(ByteBuffer buf) {
    if (buf.getInt(0) != MAGIC) {
      throw new IllegalArgumentException("not an hsperfdata file (bad magic)");
    }
    buf.order(buf.get(4) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    int entryOffset = buf.getInt(24);
    int entries = buf.getInt(28);
    Map<String, Long> longs = new HashMap<>();
    int at = entryOffset;
    for (int i = 0; i < entries && at + 20 <= buf.limit(); i++) {
      int length = buf.getInt(at);
      int nameOffset = buf.getInt(at + 4);
      int vectorLength = buf.getInt(at + 8);
      byte type = buf.get(at + 12);
      int dataOffset = buf.getInt(at + 16);
      if (length <= 0) {
        break;
      }
      if (type == 'J' && vectorLength == 0) {
        longs.put(name(buf, at + nameOffset), buf.getLong(at + dataOffset));
      }
      at += length;
    }
    return new HsPerfData(longs);
  }

  private static String name(ByteBuffer buf, int from) {
    int end = from;
    while (end < buf.limit() && buf.get(end) != 0) {
      end++;
    }
    byte[] bytes = new byte[end - from];
    buf.get(from, bytes);
    return new String(bytes, StandardCharsets.US_ASCII);
  }

  public Optional<Long> get(String counter) {
    return Optional.ofNullable(longs.get(counter));
  }

  /** Bytes in use across the heap's spaces (live data plus garbage not yet collected). */
  public long heapUsedBytes() {
    return sumSpaces(".used");
  }

  /** Bytes committed to the heap's spaces. */
  public long heapCommittedBytes() {
    return sumSpaces(".capacity");
  }

  private long sumSpaces(String suffix) {
    long sum = 0;
    for (Map.Entry<String, Long> e : longs.entrySet()) {
      String k = e.getKey();
      if (k.startsWith("sun.gc.generation.") && k.contains(".space.") && k.endsWith(suffix)) {
        sum += e.getValue();
      }
    }
    return sum;
  }
}
