package io.gpupool.clustersync;

import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;

/**
 * One cluster synced from its Kubernetes API server: {@code gpupool.sync.kubernetes.<cluster>.kubeconfig}
 * (a kubeconfig file), optionally {@code .context} (default: the file's current context) and
 * {@code .site} (the site of the cluster when the first sync creates it).
 */
@EachProperty("gpupool.sync.kubernetes")
public class KubernetesApiTarget {
    private final String cluster;
    private String kubeconfig;
    private String context;
    private String site;

    public KubernetesApiTarget(@Parameter String cluster) {
        this.cluster = cluster;
    }

    public String getCluster() {
        return cluster;
    }

    public String getKubeconfig() {
        return kubeconfig;
    }

    public void setKubeconfig(String kubeconfig) {
        this.kubeconfig = kubeconfig;
    }

    @Nullable
    public String getContext() {
        return context;
    }

    public void setContext(@Nullable String context) {
        this.context = context;
    }

    @Nullable
    public String getSite() {
        return site;
    }

    public void setSite(@Nullable String site) {
        this.site = site;
    }
}
