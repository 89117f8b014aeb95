package narwhal.bench.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HsPerfDataTest {

  @Test
  void parse_sumsHeapSpacesAndIgnoresOtherCounters() {
    ByteBuffer file = file(
        "sun.gc.generation.0.space.0.used", 100,
        "sun.gc.generation.0.space.0.capacity", 1000,
        "sun.gc.generation.1.space.0.used", 23,
        "sun.gc.generation.1.space.0.capacity", 500,
        "sun.gc.metaspace.used", 9999);
    HsPerfData d = HsPerfData.parse(file);
    assertThat(d.heapUsedBytes()).isEqualTo(123);
    assertThat(d.heapCommittedBytes()).isEqualTo(1500);
    assertThat(d.get("sun.gc.metaspace.used")).contains(9999L);
  }

  @Test
  void parse_badMagic_isRejected() {
    assertThatThrownBy(() -> HsPerfData.parse(ByteBuffer.allocate(64))).hasMessageContaining("magic");
  }

  @Test
  void read_thisJvmsOwnCounters_showsAHeapInUse() throws Exception {
    Optional<Path> mine = HsPerfData.find(Path.of(System.getProperty("java.io.tmpdir")), ProcessHandle.current().pid());
    assertThat(mine).as("this JVM's hsperfdata file (UsePerfData is on by default)").isPresent();
    HsPerfData d = HsPerfData.read(mine.get());
    assertThat(d.heapUsedBytes()).isPositive();
    assertThat(d.heapCommittedBytes()).isGreaterThanOrEqualTo(d.heapUsedBytes());
  }

  /** A little-endian version-2 file holding the given long counters. */
  private static ByteBuffer file(Object... nameValue) {
    ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
    b.order(ByteOrder.BIG_ENDIAN).putInt(0, 0xcafec0c0).order(ByteOrder.LITTLE_ENDIAN);
    b.put(4, (byte) 1).put(5, (byte) 2).put(6, (byte) 0).put(7, (byte) 1);
    b.putInt(24, 32);
    b.putInt(28, nameValue.length / 2);
    int at = 32;
    for (int i = 0; i < nameValue.length; i += 2) {
      byte[] name = ((String) nameValue[i]).getBytes(StandardCharsets.US_ASCII);
      int nameOffset = 20;
      int dataOffset = (nameOffset + name.length + 1 + 7) / 8 * 8;
      int length = dataOffset + 8;
      b.putInt(at, length).putInt(at + 4, nameOffset).putInt(at + 8, 0);
      b.put(at + 12, (byte) 'J').put(at + 13, (byte) 0).put(at + 14, (byte) 1).put(at + 15, (byte) 3);
      b.putInt(at + 16, dataOffset);
      b.put(at + nameOffset, name);
      b.put(at + nameOffset + name.length, (byte) 0);
      b.putLong(at + dataOffset, ((Number) nameValue[i + 1]).longValue());
      at += length;
    }
    b.order(ByteOrder.BIG_ENDIAN);
    return b;
  }
}
