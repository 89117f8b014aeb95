package narwhal.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

  @Test
  void uuidIsAVersionFourUuidInItsUsualSpelling() {
    String id = RequestIds.uuid();

    assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    UUID parsed = UUID.fromString(id);
    assertThat(parsed.version()).isEqualTo(4);
    assertThat(parsed.variant()).isEqualTo(2);
  }

  @Test
  void hex32IsTheSameLayoutWithoutDashes() {
    String id = RequestIds.hex32();

    assertThat(id).matches("[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}");
    UUID parsed = new UUID(Long.parseUnsignedLong(id.substring(0, 16), 16),
        Long.parseUnsignedLong(id.substring(16), 16));
    assertThat(parsed.toString().replace("-", "")).isEqualTo(id);
    assertThat(parsed.version()).isEqualTo(4);
  }

  @Test
  void idsDoNotRepeatWithinAThreadOrAcrossThreads() throws InterruptedException {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      threads.add(new Thread(() -> {
        for (int i = 0; i < 50_000; i++) {
          seen.add(RequestIds.hex32());
          seen.add(RequestIds.uuid().replace("-", ""));
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(seen).hasSize(4 * 2 * 50_000);
  }

  @Test
  void everyRandomNibbleTakesManyValues() {
    // A slip in the masks (a constant where random bits belong) shows as a position stuck at one digit.
    List<Set<Character>> digits = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      digits.add(new HashSet<>());
    }
    for (int n = 0; n < 2_000; n++) {
      String id = RequestIds.hex32();
      for (int i = 0; i < 32; i++) {
        digits.get(i).add(id.charAt(i));
      }
    }
    for (int i = 0; i < 32; i++) {
      int expected = i == 12 ? 1 : i == 16 ? 4 : 16;
      assertThat(digits.get(i)).as("hex digit %d", i).hasSize(expected);
    }
  }
}
