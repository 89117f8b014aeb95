package narwhal.bench.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import narwhal.bench.load.Phases;
import org.jspecify.annotations.Nullable;

/**
 * Profiles the router's JVM over measurement windows only: async-profiler attached by {@code jcmd}
 * as the window opens and stopped as it closes, sampling CPU with {@code itimer} every millisecond
 * ({@code perf_events}, async-profiler's default, is not available on every VM; {@code itimer}
 * needs nothing from the kernel but a timer signal). It sees Java, native and kernel frames. When
 * async-profiler cannot load, a JFR recording ({@code settings=profile}) stands in: Java frames
 * only.
 *
 * <p>An allocation profile ({@code event=alloc}) needs a window of its own: async-profiler writes
 * one event per flame graph, so it is taken in a second window after the CPU one.
 */
public final class RouterProfiler {

  /** What one profiled window produced. */
  public record Profile(String kind, String tool, List<String> files, @Nullable CollapsedStacks stacks,
      String note) {}

  private static final String CPU_EVENT = "event=itimer,interval=1ms";
  private static final String JFR_NAME = "narwhal-bench";

  private final Jcmd jcmd;
  private final Optional<AsyncProfilerAgent> agent;
  private final long pid;
  private final Path dir;
  private final List<Profile> profiles = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private boolean asyncWorks;

  private RouterProfiler(Jcmd jcmd, Optional<AsyncProfilerAgent> agent, long pid, Path dir) {
    this.jcmd = jcmd;
    this.agent = agent;
    this.pid = pid;
    this.dir = dir;
  }

  /**
   * @param java the harness's java binary: jcmd is taken from the same JDK
   * @param forceJfr skip async-profiler (to check the fallback, or where it is unwanted)
   */
  public static RouterProfiler create(String java, long routerPid, Path dir, boolean forceJfr) {
    Jcmd jcmd = new Jcmd(java);
    Optional<AsyncProfilerAgent> agent = Optional.empty();
    RouterProfiler p;
    if (!forceJfr) {
      try {
        agent = AsyncProfilerAgent.extract(jcmd, Files.createTempDirectory("narwhal-bench-profiler"));
      } catch (IOException | UncheckedIOException e) {
        agent = Optional.empty();
      }
    }
    p = new RouterProfiler(jcmd, agent, routerPid, dir);
    if (forceJfr) {
      p.notes.add("--profiler jfr: JFR instead of async-profiler");
    } else if (agent.isEmpty()) {
      p.notes.add("no async-profiler library for " + System.getProperty("os.name") + "/"
          + System.getProperty("os.arch") + " in the bench jar; JFR instead");
    }
    return p;
  }

  /** Phases that profile the router's CPU over the window. */
  public Phases cpuWindow() {
    return new Phases() {
      private boolean viaAsync;
      private boolean viaJfr;

      @Override
      public void windowOpening() {
        if (agent.isPresent()) {
          Optional<String> failed = agent.get().start(pid, CPU_EVENT);
          if (failed.isEmpty()) {
            viaAsync = true;
            asyncWorks = true;
            return;
          }
          notes.add("async-profiler did not start (" + oneLine(failed.get()) + "); JFR instead");
        }
        Jcmd.Result r = jcmd.run(pid, "JFR.start", "name=" + JFR_NAME, "settings=profile",
            "filename=" + dir.resolve("profile.jfr").toAbsolutePath());
        viaJfr = r.exitedZero() && r.output().contains("Started recording");
        if (!viaJfr) {
          notes.add("JFR did not start either (" + oneLine(r.output()) + "): no profile");
        }
      }

      @Override
      public void windowClosed() {
        if (viaAsync) {
          profiles.add(stopAsync("cpu", "profile"));
        } else if (viaJfr) {
          profiles.add(stopJfr());
        }
      }
    };
  }

  /** Phases that profile the router's allocations over the window (async-profiler only). */
  public Phases allocWindow() {
    return new Phases() {
      private boolean started;

      @Override
      public void windowOpening() {
        Optional<String> failed = agent.orElseThrow().start(pid, "event=alloc");
        started = failed.isEmpty();
        if (!started) {
          notes.add("the allocation profile did not start: " + oneLine(failed.get()));
        }
      }

      @Override
      public void windowClosed() {
        if (started) {
          profiles.add(stopAsync("alloc", "alloc"));
        }
      }
    };
  }

  /** Whether async-profiler ran in the CPU window, so an allocation window can follow. */
  public boolean canProfileAllocations() {
    return asyncWorks;
  }

  public List<Profile> profiles() {
    return List.copyOf(profiles);
  }

  public List<String> notes() {
    return List.copyOf(notes);
  }

  private Profile stopAsync(String kind, String base) {
    Path collapsed = dir.resolve(base + ".collapsed");
    Path html = dir.resolve(base + ".html");
    Optional<String> failed = agent.orElseThrow().stop(pid, collapsed, html);
    List<String> files = new ArrayList<>();
    for (Path f : List.of(html, collapsed)) {
      if (Files.exists(f)) {
        files.add(f.getFileName().toString());
      }
    }
    CollapsedStacks stacks = null;
    String note = failed.map(RouterProfiler::oneLine).orElse("");
    if (Files.exists(collapsed)) {
      try {
        stacks = CollapsedStacks.parse(Files.readString(collapsed));
      } catch (IOException | IllegalArgumentException e) {
        note = "could not read " + collapsed.getFileName() + ": " + e.getMessage();
      }
    }
    return new Profile(kind, "async-profiler", files, stacks, note);
  }

  private Profile stopJfr() {
    Path jfr = dir.resolve("profile.jfr");
    Jcmd.Result r = jcmd.run(pid, "JFR.stop", "name=" + JFR_NAME);
    if (!Files.exists(jfr)) {
      return new Profile("cpu", "JFR", List.of(), null, "JFR.stop: " + oneLine(r.output()));
    }
    try {
      CollapsedStacks stacks = JfrStacks.collapse(jfr);
      Files.writeString(dir.resolve("profile.collapsed"), stacks.render());
      return new Profile("cpu", "JFR", List.of("profile.jfr", "profile.collapsed"), stacks, "");
    } catch (IOException e) {
      return new Profile("cpu", "JFR", List.of("profile.jfr"), null, "could not read the recording: " + e);
    }
  }

  /** The report's section: how the profile was taken, links to its files, the top frames. */
  public String markdown(String what, int top) {
    StringBuilder b = new StringBuilder("## Router profile\n\n").append(what).append("\n\n");
    for (String n : notes) {
      b.append("Note: ").append(n).append("\n\n");
    }
    if (profiles.isEmpty()) {
      b.append("No profile was recorded.\n\n");
    }
    for (Profile p : profiles) {
      b.append("### ").append(p.kind().equals("cpu") ? "CPU" : "Allocations").append(" (").append(p.tool());
      if (p.tool().equals("async-profiler")) {
        b.append(p.kind().equals("cpu") ? ", event=itimer, 1 ms" : ", event=alloc");
      } else {
        b.append(", jdk.ExecutionSample: Java frames only");
      }
      b.append(")\n\n");
      if (!p.files().isEmpty()) {
        List<String> links = new ArrayList<>();
        p.files().forEach(f -> links.add("[" + f + "](" + f + ")"));
        b.append("Files: ").append(String.join(", ", links)).append("\n\n");
      }
      if (!p.note().isEmpty()) {
        b.append("Note: ").append(p.note()).append("\n\n");
      }
      CollapsedStacks s = p.stacks();
      if (s != null && s.totalSamples() > 0) {
        b.append(p.kind().equals("cpu")
                ? "Top frames by self time"
                : "Top allocation sites (allocated type) by samples")
            .append(", of ").append(s.totalSamples()).append(" samples:\n\n").append(s.topSelfTable(top)).append('\n');
      } else if (s != null) {
        b.append("No samples were collected.\n\n");
      }
    }
    return b.toString();
  }

  /** What results.json records about the profiles. */
  public Map<String, Object> json(int top) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("notes", notes);
    List<Map<String, Object>> list = new ArrayList<>();
    for (Profile p : profiles) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("kind", p.kind());
      e.put("tool", p.tool());
      e.put("files", p.files());
      e.put("note", p.note());
      CollapsedStacks s = p.stacks();
      e.put("samples", s == null ? 0 : s.totalSamples());
      e.put("top_self", s == null ? List.of() : s.topSelf(top));
      list.add(e);
    }
    m.put("profiles", list);
    return m;
  }

  private static String oneLine(String s) {
    String t = s.replaceAll("\\s+", " ").strip();
    return t.length() > 300 ? t.substring(0, 300) + "..." : t;
  }
}
