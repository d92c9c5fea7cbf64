// `explorer why` on a big table: Iceberg's own scan planning with the where clause pushed down finds the candidate
// data files. Compiled at first use inside Spark's driver JVM with Janino (see ManifestColumns.java), so it is
// written in the Java subset Janino accepts: no lambdas, raw collections with casts.
//
//   plan     the snapshot's scan, filtered by the where clause, planned by Iceberg: locally (the driver's
//            Iceberg worker pool reads the data manifests, skipping those whose partition summaries cannot
//            match, and evaluates each entry's raw bounds with InclusiveMetricsEvaluator) or distributed
//            (SparkDistributedDataScan: Spark's executors read the manifests and return only matching files).
//            Iceberg's DeleteFileIndex attaches delete files to the few planned files. The planned tasks are
//            staged (ScanTaskSetManager) so that Spark's check reads exactly this plan.
//   deletes  the delete files the explorer's answer needs beyond those attached: read from the snapshot's delete
//            manifests by Iceberg's manifest reader (see deletes() below).
//
// Each answer is text, one file a line, tab-separated:
//   kind  location  manifest  data-sequence  content-offset (-1: none)  partition key (spec id:path)
// kind D for a planned data file, A for a delete file attached to it, X for a delete file from deletes().
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BatchScan;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

public class WhyPlan {

  private static String pkey(Table table, ContentFile file) {
    PartitionSpec spec = (PartitionSpec) table.specs().get(Integer.valueOf(file.specId()));
    return file.specId() + ":" + (spec == null ? "" : spec.partitionToPath(file.partition()));
  }

  private static void line(StringBuilder out, String kind, Table table, ContentFile file) {
    Long offset = file instanceof DeleteFile ? ((DeleteFile) file).contentOffset() : null;
    Long seq = file.dataSequenceNumber();
    out.append(kind).append('\t').append(file.location()).append('\t')
        .append(file.manifestLocation() == null ? "" : file.manifestLocation()).append('\t')
        .append(seq == null ? -1L : seq.longValue()).append('\t')
        .append(offset == null ? -1L : offset.longValue()).append('\t')
        .append(pkey(table, file)).append('\n');
  }

  /** The where clause's scan of snapshotId planned by Iceberg (see the header), staged as setId when not empty. */
  public String plan(org.apache.spark.sql.SparkSession spark, Table table, long snapshotId, Expression filter,
                     boolean distributed, String setId) throws Exception {
    CloseableIterable planned;
    if (distributed) {
      BatchScan scan = new org.apache.iceberg.SparkDistributedDataScan(
          spark, table, new org.apache.iceberg.spark.SparkReadConf(spark, table, new HashMap()));
      scan = (BatchScan) ((BatchScan) scan.useSnapshot(snapshotId)).filter(filter);
      planned = scan.planFiles();
    } else {
      org.apache.iceberg.TableScan scan = (org.apache.iceberg.TableScan) table.newScan().useSnapshot(snapshotId);
      planned = ((org.apache.iceberg.TableScan) scan.filter(filter)).planFiles();
    }
    StringBuilder out = new StringBuilder();
    List tasks = new ArrayList();
    try {
      Iterator it = planned.iterator();
      while (it.hasNext()) {
        FileScanTask task = (FileScanTask) it.next();
        tasks.add(task);
        line(out, "D", table, task.file());
        Iterator deletes = task.deletes().iterator();
        while (deletes.hasNext()) {
          line(out, "A", table, (ContentFile) deletes.next());
        }
      }
    } finally {
      planned.close();
    }
    if (setId.length() > 0 && !tasks.isEmpty()) {  // none planned: nothing for Spark to read
      org.apache.iceberg.spark.ScanTaskSetManager.get().stageTasks(table, setId, tasks);
      org.apache.iceberg.spark.SparkTableCache.get().add(setId, table);  // Spark loads the staged scan by setId
    }
    return out.toString();
  }

  /** Forget the tasks staged as setId. */
  public void unstage(Table table, String setId) {
    org.apache.iceberg.spark.ScanTaskSetManager.get().removeTasks(table, setId);
    org.apache.iceberg.spark.SparkTableCache.get().remove(setId);
  }

  /**
   * The live delete files of snapshotId the explorer's answer reads (the rule of distributed_why.py): deletion
   * vectors and file-scoped position deletes of a candidate data file (paths, newline-separated); partition-scoped
   * position deletes of a candidate's partition (pkeys); equality deletes that are global, of a candidate's
   * partition, or keyed on a where column, whose bounds on each where column among their equality ids can hold
   * its value (terms[i]: the where clause's predicate on field termIds[i], judged by Iceberg's
   * InclusiveMetricsEvaluator on the delete file's own statistics).
   */
  public String deletes(Table table, long snapshotId, String paths, String pkeys, Expression[] terms,
                        int[] termIds) throws Exception {
    Set candidates = new HashSet();
    String[] split = paths.split("\n");
    for (int i = 0; i < split.length; i++) candidates.add(split[i]);
    Set partitions = new HashSet();
    split = pkeys.split("\n");
    for (int i = 0; i < split.length; i++) partitions.add(split[i]);
    Set whereIds = new HashSet();
    for (int i = 0; i < termIds.length; i++) whereIds.add(Integer.valueOf(termIds[i]));
    Map evaluators = new HashMap();  // equality ids -> the evaluator of the where terms on them
    Snapshot snapshot = table.snapshot(snapshotId);
    Integer schemaId = snapshot.schemaId();
    org.apache.iceberg.Schema schema = schemaId != null && table.schemas().containsKey(schemaId)
        ? (org.apache.iceberg.Schema) table.schemas().get(schemaId) : table.schema();
    StringBuilder out = new StringBuilder();
    Iterator manifests = snapshot.deleteManifests(table.io()).iterator();
    while (manifests.hasNext()) {
      ManifestFile manifest = (ManifestFile) manifests.next();
      ManifestReader reader = ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs());
      try {
        Iterator files = reader.iterator();  // live entries, sequence numbers inherited
        while (files.hasNext()) {
          DeleteFile file = (DeleteFile) files.next();
          boolean keep;
          if (file.content() == FileContent.EQUALITY_DELETES) {
            List ids = file.equalityFieldIds();
            boolean keyed = false;
            Expression mine = Expressions.alwaysTrue();
            for (int i = 0; i < termIds.length; i++) {
              if (ids != null && ids.contains(Integer.valueOf(termIds[i]))) {
                keyed = true;
                mine = Expressions.and(mine, terms[i]);
              }
            }
            PartitionSpec spec = (PartitionSpec) table.specs().get(Integer.valueOf(file.specId()));
            boolean scope = keyed || spec == null || spec.isUnpartitioned() || partitions.contains(pkey(table, file));
            keep = scope;
            if (scope && keyed) {
              String key = String.valueOf(ids);
              InclusiveMetricsEvaluator evaluator = (InclusiveMetricsEvaluator) evaluators.get(key);
              if (evaluator == null) {
                evaluator = new InclusiveMetricsEvaluator(schema, mine);
                evaluators.put(key, evaluator);
              }
              keep = evaluator.eval(file);
            }
          } else {
            String referenced = ContentFileUtil.referencedDataFileLocation(file);
            keep = referenced != null ? candidates.contains(referenced)
                : file.format() != FileFormat.PUFFIN && partitions.contains(pkey(table, file));
          }
          if (keep) line(out, "X", table, file);
        }
      } finally {
        reader.close();
      }
    }
    return out.toString();
  }
}
