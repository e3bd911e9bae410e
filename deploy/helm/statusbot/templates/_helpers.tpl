{{- define "statusbot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "statusbot.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "statusbot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "statusbot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "statusbot.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "statusbot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* "true" when statusbot uses PostgreSQL, "" on SQLite. */}}
{{- define "statusbot.postgres" -}}
{{- if or .Values.database.url .Values.database.existingSecret }}true{{ end }}
{{- end }}

{{/* The Secret and key holding the PostgreSQL URL. */}}
{{- define "statusbot.databaseSecretName" -}}
{{- if .Values.database.existingSecret }}{{ .Values.database.existingSecret }}{{ else }}{{ include "statusbot.fullname" . }}-database{{ end }}
{{- end }}
{{- define "statusbot.databaseSecretKey" -}}
{{- if .Values.database.existingSecret }}{{ .Values.database.existingSecretKey }}{{ else }}url{{ end }}
{{- end }}

{{/* Whether a config file is mounted: the chart's ConfigMap or one of the user's. */}}
{{- define "statusbot.hasConfig" -}}
{{- if or .Values.config .Values.existingConfigMap }}true{{ end }}
{{- end }}

{{/* The config file's text from values.config: a string as it is, a map as YAML. */}}
{{- define "statusbot.configText" -}}
{{- if kindIs "string" .Values.config }}{{ .Values.config }}{{ else }}{{ toYaml .Values.config }}{{ end }}
{{- end }}

{{/* Refuses what cannot work, with why. */}}
{{- define "statusbot.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "statusbot.postgres" .)) }}
{{- fail (printf "replicaCount is %d but statusbot is on SQLite: several pods on one SQLite file corrupt it, and a rolling update of a ReadWriteOnce volume deadlocks. Use replicaCount: 1, or PostgreSQL (database.url or database.existingSecret) for more replicas." (int .Values.replicaCount)) }}
{{- end }}
{{- if and .Values.database.url .Values.database.existingSecret }}
{{- fail "database.url and database.existingSecret both name the database: set one of them" }}
{{- end }}
{{- if and .Values.config .Values.existingConfigMap }}
{{- fail "config and existingConfigMap both give the config file: set one of them" }}
{{- end }}
{{- if and .Values.database.url (not (regexMatch "^postgres(ql)?://" .Values.database.url)) }}
{{- fail (printf "database.url must be a postgres:// URL, not %q (leave it empty for SQLite on the chart's volume)" .Values.database.url) }}
{{- end }}
{{- end }}
