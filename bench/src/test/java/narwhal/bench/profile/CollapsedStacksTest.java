package narwhal.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class CollapsedStacksTest {

  private static final String PROFILE = String.join("\n",
      "java.lang.Thread.run;io.netty.channel.nio.NioEventLoop.run;sun.nio.ch.EPoll.wait;epoll_wait_[k] 30",
      "java.lang.Thread.run;io.netty.channel.nio.NioEventLoop.run;io.netty.Encoder.encode;writev_[k] 50",
      "java.lang.Thread.run;io.netty.channel.nio.NioEventLoop.run;sun.nio.ch.EPoll.wait;epoll_wait_[k] 10",
      "",
      "[vm];GCTaskThread::run;SerialHeap::collect 10",
      "java.lang.Thread.run;narwhal.Relay.onToken 0",
      "");

  @Test
  void topSelf_sumsSamplesByLastFrame_mostFirst() {
    CollapsedStacks s = CollapsedStacks.parse(PROFILE);
    assertThat(s.totalSamples()).isEqualTo(100);
    List<CollapsedStacks.Frame> top = s.topSelf(10);
    assertThat(top).extracting(CollapsedStacks.Frame::name)
        .containsExactly("writev_[k]", "epoll_wait_[k]", "SerialHeap::collect");
    assertThat(top).extracting(CollapsedStacks.Frame::samples).containsExactly(50L, 40L, 10L);
    assertThat(top.get(1).share()).isCloseTo(0.40, within(1e-9));
    assertThat(s.topSelf(1)).hasSize(1);
  }

  @Test
  void topSelfTable_isMarkdownWithPercentages() {
    String table = CollapsedStacks.parse(PROFILE).topSelfTable(2);
    assertThat(table.lines()).containsExactly(
        "| self samples | share | frame |",
        "|---:|---:|---|",
        "| 50 | 50.0% | `writev_[k]` |",
        "| 40 | 40.0% | `epoll_wait_[k]` |");
  }

  @Test
  void render_roundTrips_mergingEqualStacks() {
    CollapsedStacks s = new CollapsedStacks();
    s.add(List.of("main", "a", "b"), 3);
    s.add(List.of("main", "a", "b"), 2);
    s.add(List.of("main", "c"), 7);
    assertThat(s.render()).isEqualTo("main;c 7\nmain;a;b 5\n");
    assertThat(CollapsedStacks.parse(s.render()).topSelf(5)).extracting(CollapsedStacks.Frame::samples)
        .containsExactly(7L, 5L);
  }

  @Test
  void parse_rejectsLinesWithoutACount() {
    assertThatThrownBy(() -> CollapsedStacks.parse("main;a;b\n")).hasMessageContaining("not a collapsed-stack line");
    assertThatThrownBy(() -> CollapsedStacks.parse("main;a x\n")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void framesWithSpaces_keepTheirNames() {
    // Native frames can contain spaces (C++ signatures); only the last space separates the count.
    CollapsedStacks s = CollapsedStacks.parse("start_thread;JavaThread::run();operator new(unsigned long) 4\n");
    assertThat(s.topSelf(1).get(0).name()).isEqualTo("operator new(unsigned long)");
  }
}
