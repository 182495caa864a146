import org.apache.kafka.clients.admin.*;
import java.util.*;

/** Waits (up to a[2] s) until the consumer group has no members; exit 1 if it still has some. */
public class GroupEmpty {
    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", a[0]);
        long until = System.currentTimeMillis() + Long.parseLong(a[2]) * 1000;
        try (Admin admin = Admin.create(p)) {
            while (true) {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(a[1])).all().get().get(a[1]);
                if (d.members().isEmpty()) { System.out.println("empty: " + d.groupState() + " " + d.type()); return; }
                if (System.currentTimeMillis() > until) { System.out.println("not empty: " + d.members().size()); System.exit(1); }
                Thread.sleep(500);
            }
        }
    }
}
