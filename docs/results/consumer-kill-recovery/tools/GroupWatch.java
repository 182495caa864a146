import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.TopicPartition;
import java.time.LocalTime;
import java.util.*;
import java.util.stream.*;

/** Prints the consumer group's state and members each time it changes, with a wall-clock time. */
public class GroupWatch {
    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", a[0]);
        p.put("request.timeout.ms", "5000");
        String group = a[1];
        long until = System.currentTimeMillis() + Long.parseLong(a[2]) * 1000;
        String last = "";
        try (Admin admin = Admin.create(p)) {
            while (System.currentTimeMillis() < until) {
                String now;
                try {
                    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                    String members = d.members().stream().map(m -> m.consumerId().substring(Math.max(0, m.consumerId().length() - 8))
                            + (m.groupInstanceId().isPresent() ? "/" + m.groupInstanceId().get() : "")
                            + m.assignment().topicPartitions().stream().map(TopicPartition::partition).sorted().map(String::valueOf).collect(Collectors.joining(",", "[", "]")))
                            .sorted().collect(Collectors.joining(" "));
                    now = d.groupState() + " " + d.type() + " members=" + d.members().size() + " " + members;
                } catch (Exception e) {
                    now = "error " + e.getMessage();
                }
                if (!now.equals(last)) {
                    System.out.println(LocalTime.now() + " " + now);
                    last = now;
                }
                Thread.sleep(250);
            }
        }
    }
}
