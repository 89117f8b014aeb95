package narwhal.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * An immutable list of engine-level faults, each written as a spec string.
 *
 * <p>Grammar: {@code name} or {@code name=value[,key=value...]}, with the modifiers {@code
 * count=K} and {@code phase=prefill|decode} on any fault and {@code fail-first=K,then=SPEC} as a
 * spelling of {@code SPEC,count=K}. The engine keeps the per-fault counts: installing a plan with
 * {@link SimEngine#setFaults} starts every count afresh. See the module README for every fault.
 */
public final class FaultPlan {
  private static final FaultPlan NONE = new FaultPlan(List.of());

  private final List<FaultSpec> specs;

  private FaultPlan(List<FaultSpec> specs) {
    this.specs = List.copyOf(specs);
  }

  /** The plan without faults. */
  public static FaultPlan none() {
    return NONE;
  }

  /** Parses each spec; throws {@link IllegalArgumentException} naming the bad one. */
  public static FaultPlan of(String... specs) {
    return of(List.of(specs));
  }

  /** Parses each spec; throws {@link IllegalArgumentException} naming the bad one. */
  public static FaultPlan of(Collection<String> specs) {
    List<FaultSpec> parsed = new ArrayList<>(specs.size());
    for (String spec : specs) {
      parsed.add(FaultSpec.parse(requireNonNull(spec, "spec")));
    }
    return parsed.isEmpty() ? NONE : new FaultPlan(parsed);
  }

  /** This plan plus {@code spec}. */
  public FaultPlan and(String spec) {
    List<FaultSpec> more = new ArrayList<>(specs);
    more.add(FaultSpec.parse(spec));
    return new FaultPlan(more);
  }

  /** The specs as written, in order. */
  public List<String> specs() {
    return specs.stream().map(FaultSpec::text).collect(Collectors.toUnmodifiableList());
  }

  public boolean isEmpty() {
    return specs.isEmpty();
  }

  List<FaultSpec> parsed() {
    return specs;
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof FaultPlan && ((FaultPlan) other).specs.equals(specs);
  }

  @Override
  public int hashCode() {
    return specs.hashCode();
  }

  @Override
  public String toString() {
    return "FaultPlan" + specs();
  }
}
